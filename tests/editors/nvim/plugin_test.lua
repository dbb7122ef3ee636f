-- Headless Neovim checks of the plugin parts that need no server: the
-- verified-rewrite preview (warplens.previewRewrite: diff first, apply only
-- on "Apply", refuse an edit made for another buffer version) and the kernel
-- report's JSON pretty-printer. Exit code 0 = pass.
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

print('PASS plugin')
vim.cmd('qa!')
