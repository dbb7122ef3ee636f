-- Headless Neovim checks of the plugin parts that need no server: the
-- verified-rewrite preview (warplens.previewRewrite: diff first, apply only
-- on "Apply", refuse an edit made for another buffer version), the kernel
-- report's JSON pretty-printer, the report view's text pictures, the
-- settings check of :checkhealth, :checkhealth itself and lsp/warplens.lua
-- (for 0.11's vim.lsp.enable). Exit code 0 = pass.
--   nvim --headless -u NONE -i NONE --cmd 'set rtp^=editors/nvim' -c 'luafile tests/editors/nvim/plugin_test.lua'

local function fail(msg)
  io.stderr:write('FAIL ' .. msg .. '\n')
  vim.cmd('cquit 1')
end
local function check(cond, msg) if not cond then fail(msg) end end

local preview = require('warplens.preview')
local client = { offset_encoding = 'utf-16' } -- show() only needs the encoding

local file = vim.fn.tempname() .. '.cu'
vim.fn.writefile({ '__global__ void k(float *a) {', '  __shared__ float tile[32][32];', '  a[0] = tile[0][0];', '}' }, file)
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(buf)
local original = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
vim.lsp.util.buf_versions[buf] = 1 -- as if a client were attached (the preview checks versions)
local function text(b) return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') end

local pad_edit = { changes = { [uri] = { {
  range = { start = { line = 1, character = 28 }, ['end'] = { line = 1, character = 30 } }, newText = '33',
} } } }

-- Answers the Apply/Discard prompt with `answer`, after checking the diff on screen.
local seen_diff
local function answer_with(answer)
  seen_diff = nil
  vim.ui.select = function(items, _, on_choice)
    local wins = vim.api.nvim_tabpage_list_wins(0)
    local diff_texts = {}
    for _, w in ipairs(wins) do
      if vim.wo[w].diff then table.insert(diff_texts, text(vim.api.nvim_win_get_buf(w))) end
    end
    seen_diff = diff_texts
    check(vim.tbl_contains(items, answer), 'prompt lacks ' .. answer .. ': ' .. vim.inspect(items))
    on_choice(answer)
  end
end

-- 1. Discard: the diff was shown (original beside proposed), nothing changed, the tab is gone.
answer_with('Discard')
preview.show(client, { title = 'pad tile', edit = pad_edit })
check(seen_diff and #seen_diff == 2, 'no two-window diff was shown: ' .. vim.inspect(seen_diff))
check(seen_diff[1]:find('tile[32][32]', 1, true) and seen_diff[2]:find('tile[32][33]', 1, true),
  'the diff does not show original vs proposed: ' .. vim.inspect(seen_diff))
check(vim.deep_equal(vim.api.nvim_buf_get_lines(buf, 0, -1, false), original), 'Discard changed the buffer')
check(vim.fn.tabpagenr('$') == 1, 'the preview tab was not closed')

-- 2. Apply: the buffer gets exactly the edit.
answer_with('Apply')
preview.show(client, { title = 'pad tile', edit = pad_edit })
check(text(buf):find('__shared__ float tile[32][33];', 1, true), 'Apply did not apply the edit: ' .. text(buf))
check(vim.fn.tabpagenr('$') == 1, 'the preview tab was not closed after Apply')

-- 3. An edit computed for another version of the document is refused, with no prompt.
local before = text(buf)
local prompted = false
vim.ui.select = function() prompted = true end
preview.show(client, { title = 'stale', edit = { documentChanges = { {
  textDocument = { uri = uri, version = 9999 },
  edits = { { range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } }, newText = '// x\n' } },
} } } })
check(not prompted and text(buf) == before, 'a stale edit was offered or applied')

-- 4. The report pretty-printer: sorted keys, nested arrays, null.
local pretty = require('warplens.json').pretty({ kernels = { { name = 'k', regs = 32 } }, arch = 'sm_90', gpu = vim.NIL })
local expected = table.concat({
  '{', '  "arch": "sm_90",', '  "gpu": null,', '  "kernels": [', '    {', '      "name": "k",', '      "regs": 32',
  '    }', '  ]', '}' }, '\n')
check(pretty == expected, 'pretty JSON differs:\n' .. pretty)

-- 5. The report view's occupancy chart: whole text, for a curve of 8 sizes.
local report = require('warplens.report')
local occ = {
  threshold = 0.5,
  block = { threads = 128, shape = '128' },
  curve = {
    { threads = 32, occupancy = 0.25 }, { threads = 64, occupancy = 0.5 }, { threads = 96, occupancy = 0.75 },
    { threads = 128, occupancy = 1.0 }, { threads = 160, occupancy = 0.625 }, { threads = 192, occupancy = 0 },
    { threads = 224, occupancy = vim.NIL }, { threads = 256, occupancy = vim.NIL },
  },
}
local chart = table.concat(report.occupancy_chart(occ), '\n')
local want_chart = table.concat({
  '100% │   █    ',
  '     │   █    ',
  '     │  ██    ',
  '     │  ███   ',
  ' 50% │┄████┄┄┄ threshold 50%',
  '     │ ████   ',
  '     │█████   ',
  '     │█████   ',
  '     └─────×··',
  '         ▲    ',
  '      32   256  threads per block',
}, '\n')
check(chart == want_chart, 'occupancy chart differs:\n' .. chart .. '\nwanted:\n' .. want_chart)

-- 6. Optimize bars: before/after per candidate, scaled to the slowest.
local bars = table.concat(report.optimize_bars({ candidates = {
  { id = 'c01', title = 'pad-shared(pad=1)', before_ms = 0.4, after_ms = 0.2, speedup = 2.0, correct = true, compiled = true },
  { id = 'c02', title = 'broken', before_ms = 0.4, after_ms = 0, speedup = 0, correct = false, compiled = true,
    reason = 'out[3]: expected 1, got 2' },
} }), '\n')
local full = string.rep('█', 30)
local want_bars = table.concat({
  '```',
  'c01  before ' .. full .. ' 0.400 ms',
  '     after  ' .. string.rep('█', 15) .. string.rep(' ', 15) .. ' 0.200 ms  2.00×  pad-shared(pad=1)',
  'c02  before ' .. full .. ' 0.400 ms',
  '     after  incorrect: out[3]: expected 1, got 2',
  '```',
}, '\n')
check(bars == want_bars, 'optimize bars differ:\n' .. bars .. '\nwanted:\n' .. want_bars)

-- 7. The roofline text: intensity against the ridge, the bound, not yet measured.
local roof = table.concat(report.roofline({
  work = { modelled = true, intensity = 0.25, trips_known = true, flops_per_thread = 2, bytes_per_thread = 8,
           unknown_loops = {}, threads = vim.NIL },
  gpu = { dram_gbs = 4800, fp32_gflops = 67000 },
  measured = vim.NIL,
}), '\n')
check(roof:find('arithmetic intensity (●): **0.25 FLOP/B**, memory-bound (ridge ┼ at 14 FLOP/B)', 1, true), roof)
check(roof:find('bound at this intensity: **1.2 TFLOP/s**', 1, true), roof)
check(roof:find('measured: not profiled yet', 1, true), roof)

-- 8. :checkhealth's settings check against the schema (generated from server/settings_schema.json).
local health = require('warplens.health')
local problems = health.settings_problems({ arch = 'sm_80', thresholds = { occupancy = 2, typo = 1 }, colour = 'blue',
  clangDiagnostics = 'maybe', kernelBlockSizes = { k = { 32, 8 } } })
table.sort(problems)
check(vim.deep_equal(problems, {
  'settings.clangDiagnostics: expected one of auto, on, off',
  'settings.colour: unknown setting',
  'settings.thresholds.occupancy: 2 is outside 0..1',
  'settings.thresholds.typo: unknown setting',
}), 'settings problems: ' .. vim.inspect(problems))
check(#health.settings_problems({ arch = 'sm_90', thresholds = { bankConflict = 4 } }) == 0, 'valid settings flagged')
-- And :checkhealth warplens runs (0.7 finds lua/warplens/health.lua).
require('warplens').setup { cmd = { 'warplens-not-installed' }, autostart = false }
vim.cmd('checkhealth warplens')
local health_text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
check(health_text:find('server not found: warplens-not-installed', 1, true), 'checkhealth output:\n' .. health_text)
check(health_text:find('settings match the schema', 1, true), 'checkhealth output:\n' .. health_text)

-- 9. lsp/warplens.lua, the config vim.lsp.enable('warplens') reads on 0.11+.
local config = dofile(vim.api.nvim_get_runtime_file('lsp/warplens.lua', false)[1])
check(vim.deep_equal(config.cmd, { 'warplens' }) and vim.deep_equal(config.filetypes, { 'cuda' }),
  'lsp/warplens.lua: ' .. vim.inspect(config))
check(type(config.on_attach) == 'function' and type(config.handlers['warplens/status']) == 'function',
  'lsp/warplens.lua lacks on_attach or the status handler')

-- 10. The help file has its tags.
local doc = vim.api.nvim_get_runtime_file('doc/warplens.txt', false)[1]
check(doc, 'doc/warplens.txt is not on the runtimepath')
local help = table.concat(vim.fn.readfile(doc), '\n')
for _, tag in ipairs({ '*warplens*', '*:WarplensReport*', '*warplens-clangd*', '*warplens-enable*' }) do
  check(help:find(tag, 1, true), 'doc/warplens.txt lacks ' .. tag)
end

print('PASS plugin')
vim.cmd('qa!')
