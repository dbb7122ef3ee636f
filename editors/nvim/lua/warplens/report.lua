-- The kernel report view for Neovim: a markdown buffer with text pictures
-- drawn from the plain data the server sends (warplens.kernelView, and an
-- optimize result's candidates): occupancy over block sizes as a bar chart
-- (the current launch marked), the roofline as a ruler of arithmetic
-- intensity against the ridge point, and before/after bars per optimize
-- candidate. The same numbers as VS Code's webview; the server computes
-- them all, this only lays them out.
local M = {}

local blocks = { ' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█' }

local function pct(f)
  local p = f * 100
  if math.abs(p - math.floor(p + 0.5)) < 0.05 then return string.format('%d%%', math.floor(p + 0.5)) end
  return string.format('%.1f%%', p)
end

local function si(v, unit)
  for _, s in ipairs({ { 1e15, 'P' }, { 1e12, 'T' }, { 1e9, 'G' }, { 1e6, 'M' }, { 1e3, 'k' } }) do
    if math.abs(v) >= s[1] then return string.format('%.3g %s%s', v / s[1], s[2], unit) end
  end
  return string.format('%.3g %s', v, unit)
end

local function bytes(n)
  if type(n) ~= 'number' then return '—' end
  if n < 1024 then return string.format('%d B', n) end
  if n % 1024 == 0 then return string.format('%d KB', n / 1024) end
  return string.format('%.1f KB', n / 1024)
end

local function present(v) return v ~= nil and v ~= vim.NIL end

local severity = { 'error', 'warning', 'info', 'hint' }

-- Occupancy over block sizes: one column per size in the curve (multiples
-- of 32), eight rows of 12.5%, sizes that cannot launch as `×` on the axis,
-- sizes over __launch_bounds__ as `·`; `▲` under the current launch.
function M.occupancy_chart(occ)
  local rows = 8
  local lines = {}
  local threshold_row = math.floor(occ.threshold * rows + 0.5)
  for r = rows, 1, -1 do
    local label = (r == rows and '100%' or r == rows / 2 and ' 50%' or '    ')
    local cells = {}
    for _, p in ipairs(occ.curve) do
      local cell
      if not present(p.occupancy) or p.occupancy == 0 then
        cell = ' '
      else
        local level = p.occupancy * rows - (r - 1) -- how much of this row is filled
        if level >= 1 then cell = blocks[9]
        elseif level > 0 then cell = blocks[math.max(2, math.floor(level * 8 + 0.5) + 1)]
        else cell = ' ' end
      end
      if cell == ' ' and r == threshold_row then cell = '┄' end
      table.insert(cells, cell)
    end
    local mark = r == threshold_row and ' threshold ' .. pct(occ.threshold) or ''
    table.insert(lines, label .. ' │' .. table.concat(cells) .. mark)
  end
  local axis, marks = {}, {}
  for _, p in ipairs(occ.curve) do
    if not present(p.occupancy) then table.insert(axis, '·')
    elseif p.occupancy == 0 then table.insert(axis, '×')
    else table.insert(axis, '─') end
    table.insert(marks, p.threads == occ.block.threads and '▲' or ' ')
  end
  table.insert(lines, '     └' .. table.concat(axis))
  table.insert(lines, '      ' .. table.concat(marks))
  local n = #occ.curve
  local last = occ.curve[n] and occ.curve[n].threads or 1024
  local scale = '      ' .. string.format('%-' .. math.max(n - #tostring(last), 1) .. 's%d', tostring(occ.curve[1] and occ.curve[1].threads or 32), last)
  table.insert(lines, scale .. '  threads per block')
  return lines
end

local function model_point(view)
  local w, g = view.work, view.gpu
  if not (w and w.modelled and w.intensity and w.intensity > 0 and g and present(g.dram_gbs) and present(g.fp32_gflops)
      and g.dram_gbs > 0 and g.fp32_gflops > 0) then
    return nil
  end
  return { intensity = w.intensity, gflops = math.min(g.fp32_gflops, w.intensity * g.dram_gbs) }
end

local function measured_point(view)
  local w, m = view.work, view.measured
  if not (w and present(m) and w.intensity and w.intensity > 0) then return nil end
  if present(w.flops_per_launch) and present(m.time_ns) and m.time_ns > 0 then
    return { intensity = w.intensity, gflops = w.flops_per_launch / m.time_ns }
  end
  if present(m.effective_gbs) then return { intensity = w.intensity, gflops = w.intensity * m.effective_gbs } end
  return nil
end

-- The roofline as a ruler: log2 intensity from 1/16 to 256 FLOP/B, the
-- model's intensity `●` and the ridge point `┼` (left of it: memory-bound).
function M.roofline(view)
  local lines = {}
  local w, g = view.work, view.gpu
  if not (w and w.modelled) then
    return { 'No global-memory accesses in the model: nothing to place on the roofline.' }
  end
  if not (w.intensity and w.intensity > 0) then
    return { 'No floating-point arithmetic found: the kernel only moves data, so its roof is the DRAM bandwidth' ..
      (g and present(g.dram_gbs) and (' (' .. si(g.dram_gbs * 1e9, 'B/s') .. ')') or '') .. '.' }
  end
  local model = model_point(view)
  local width, lo, hi = 48, -4, 8 -- log2 range
  local function col(i) return math.max(0, math.min(width - 1, math.floor((math.log(i) / math.log(2) - lo) / (hi - lo) * (width - 1) + 0.5))) end
  local ruler = {}
  for i = 0, width - 1 do ruler[i] = '─' end
  local ridge = model and g.fp32_gflops / g.dram_gbs
  if ridge then ruler[col(ridge)] = '┼' end
  ruler[col(w.intensity)] = '●'
  local text = {}
  for i = 0, width - 1 do table.insert(text, ruler[i]) end
  table.insert(lines, '```')
  table.insert(lines, '1/16 ' .. table.concat(text) .. ' 256  FLOP/B')
  table.insert(lines, '```')
  local kind = ridge and (w.intensity < ridge and 'memory-bound' or 'compute-bound') or nil
  table.insert(lines, string.format('- arithmetic intensity (●): **%.3g FLOP/B**%s%s', w.intensity,
    w.trips_known and '' or ' (as the unknown loops grow)',
    kind and string.format(', %s (ridge ┼ at %.3g FLOP/B)', kind, ridge) or ''))
  if present(w.flops_per_thread) and present(w.bytes_per_thread) then
    local per_launch = present(w.threads) and string.format('; per launch (%d threads): %s, %s', w.threads,
      si(w.flops_per_launch, 'FLOP'), si(w.bytes_per_launch, 'B')) or ''
    table.insert(lines, string.format('- per thread: %g FLOP, %g B%s', w.flops_per_thread, w.bytes_per_thread, per_launch))
  end
  if w.unknown_loops and #w.unknown_loops > 0 then
    table.insert(lines, '- loops with unknown trip counts: ' .. table.concat(w.unknown_loops, '; '))
  end
  if model then
    table.insert(lines, string.format('- roofs: %s DRAM, %s FP32 → bound at this intensity: **%s**',
      si(g.dram_gbs * 1e9, 'B/s'), si(g.fp32_gflops * 1e9, 'FLOP/s'), si(model.gflops * 1e9, 'FLOP/s')))
  end
  local m, point = view.measured, measured_point(view)
  if point then
    table.insert(lines, string.format('- measured%s: **%s**%s — %s', m.stale and ' (stale)' or '',
      si(point.gflops * 1e9, 'FLOP/s'), model and (', ' .. pct(point.gflops / model.gflops) .. ' of the bound') or '', m.title))
  else
    table.insert(lines, '- measured: not profiled yet (:WarplensProfile)')
  end
  table.insert(lines, '- caches are not modelled: data re-read from L1/L2 counts as DRAM traffic (a lower bound on the intensity)')
  return lines
end

-- Before/after bars per optimize candidate, scaled to the slowest time.
function M.optimize_bars(result)
  local lines = {}
  local max = 0
  for _, c in ipairs(result.candidates or {}) do max = math.max(max, c.before_ms or 0, c.after_ms or 0) end
  if max <= 0 then max = 1 end
  local width = 30
  -- Padded by cells, not bytes ('█' is three bytes).
  local function bar(ms)
    local n = math.max(1, math.min(width, math.floor(ms / max * width + 0.5)))
    return string.rep('█', n) .. string.rep(' ', width - n)
  end
  table.insert(lines, '```')
  for _, c in ipairs(result.candidates or {}) do
    local ok = c.correct and (c.after_ms or 0) > 0
    table.insert(lines, string.format('%-4s before %s %.3f ms', c.id, bar(c.before_ms or 0), c.before_ms or 0))
    if ok then
      table.insert(lines, string.format('     after  %s %.3f ms  %.2f×  %s', bar(c.after_ms), c.after_ms,
        c.speedup or 0, c.title or ''))
    else
      local why = not c.compiled and 'did not compile' or not c.correct and 'incorrect' or 'not timed'
      table.insert(lines, string.format('     after  %s%s', why, (c.reason and c.reason ~= '') and (': ' .. c.reason) or ''))
    end
  end
  table.insert(lines, '```')
  return lines
end

local function strip_md(s) return (tostring(s or ''):gsub('%*%*', '')) end

--- The lines of the report buffer for `view` (warplens.kernelView) and an
--- optional optimize result.
function M.lines(view, optimize)
  local out = {}
  local function add(...) for _, l in ipairs({ ... }) do table.insert(out, l) end end
  local name = view and view.kernel and view.kernel.name or (optimize and optimize.kernel) or 'kernel'
  local gpu = view and view.gpu and (' · ' .. view.gpu.arch .. ' · ' .. view.gpu.name) or ''
  add('# kernel `' .. name .. '`' .. gpu, '')
  if view then
    local r = view.resources or {}
    if present(r.code_lens) and r.code_lens ~= '' then add(r.code_lens, '') end
    if present(r.stale_version) then
      add('*Updating: these numbers are from version ' .. r.stale_version .. '; nvcc is compiling the current text.*', '')
    end
    add('## Occupancy by block size', '')
    local occ = view.occupancy
    if occ and occ.known then
      add('```')
      for _, l in ipairs(M.occupancy_chart(occ)) do add(l) end
      add('```')
      add('▲ ' .. occ.block.shape .. ' threads, from ' .. occ.block.detail .. '. ' .. strip_md(occ.sentence))
      if present(occ.lever) then add('', strip_md(occ.lever) .. '.') end
    else
      add('Occupancy unavailable: ' .. tostring((occ and occ.missing) or r.missing or 'resource usage not computed') .. '.')
    end
    add('', '## Roofline', '')
    for _, l in ipairs(M.roofline(view)) do add(l) end
    add('', '## Resources', '')
    if r.known then
      add(string.format('registers %d · shared %s static + %s dynamic · stack %s · spills %s stored / %s loaded · barriers %d',
        r.registers or 0, bytes(r.shared_static_bytes), bytes(r.shared_dynamic_bytes), bytes(r.stack_bytes),
        bytes(r.spill_store_bytes), bytes(r.spill_load_bytes), r.barriers or 0))
    else
      add('Resource usage unavailable: ' .. tostring(r.missing or '?') .. '.')
    end
    if view.findings and #view.findings > 0 then
      add('', '## Findings', '')
      for _, f in ipairs(view.findings) do
        add(string.format('- %s `%s` line %d: %s', severity[f.severity] or '', f.code, f.line + 1, f.message))
      end
    end
    if view.gpu then add('', '*Device limits and peaks: ' .. tostring(view.gpu.source) .. '.*') end
  end
  if optimize and optimize.candidates and #optimize.candidates > 0 then
    add('', '## Optimize results' .. ((optimize.gpu and optimize.gpu ~= '') and (' on ' .. optimize.gpu) or ''), '')
    if optimize.summary then add(strip_md(optimize.summary), '') end
    for _, l in ipairs(M.optimize_bars(optimize)) do add(l) end
  end
  return out
end

-- One report buffer per kernel, reused: `warplens-report://<file>#<kernel>`.
local buffers = {}

function M.show(view, optimize, source_path)
  local name = 'warplens-report://' .. (source_path or '') .. '#' .. ((view and view.kernel.name) or optimize.kernel)
  local buf = buffers[name]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    buffers[name] = buf
    pcall(vim.api.nvim_buf_set_name, buf, name)
    vim.bo[buf].filetype = 'markdown'
    vim.bo[buf].bufhidden = 'hide'
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.lines(view, optimize))
  vim.bo[buf].modifiable = false
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('vsplit')
    vim.api.nvim_win_set_buf(0, buf)
  else
    vim.api.nvim_set_current_win(win)
  end
  return buf
end

return M
