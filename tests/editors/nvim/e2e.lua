-- Headless Neovim end-to-end test of the warplens plugin against the real
-- server binary (Neovim 0.7-compatible). Driven by a scenario file (see
-- tests/editors/README.md): the expected diagnostic arrives, the hover shows
-- the expected text, the quick fix's edit applies through Neovim's own
-- code-action flow, and the diagnostic clears. Stops at the first failed
-- check with a message saying what was seen instead; a server that is missing
-- or exits fails at once rather than waiting out the timeouts.
--
-- Environment: E2E_SERVER (binary), E2E_SCENARIO (scenario JSON),
-- E2E_WORKSPACE (a throwaway copy of tests/editors/workspace).

local server = assert(vim.env.E2E_SERVER, 'E2E_SERVER not set')
local scenario = vim.fn.json_decode(table.concat(vim.fn.readfile(assert(vim.env.E2E_SCENARIO)), '\n'))
local workspace = assert(vim.env.E2E_WORKSPACE, 'E2E_WORKSPACE not set')
local timeout_ms = tonumber(vim.env.E2E_TIMEOUT_MS or '60000')

local function log(msg) io.stdout:write(msg .. '\n') end
local function fail(msg)
  io.stderr:write('FAIL ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

local server_exit = nil
local function server_died()
  if server_exit then
    return string.format('the warplens server exited (code %d, signal %d)', server_exit.code, server_exit.signal)
  end
end

-- Waits for cond() or for the server to die; fails with what() on timeout.
local function wait_for(what, cond, ms)
  local ok = vim.wait(ms or timeout_ms, function() return server_exit ~= nil or cond() end, 50)
  if server_exit then fail(server_died() .. ' while waiting for ' .. what) end
  if not ok then fail('timed out after ' .. (ms or timeout_ms) .. ' ms waiting for ' .. what) end
end

local function lower(s) return string.lower(tostring(s or '')) end

-- 0-based {line, character} of `anchor` (+ offset) in `lines` (ASCII fixtures).
local function locate(lines, anchor, offset)
  for i, line in ipairs(lines) do
    local col = line:find(anchor, 1, true)
    if col then return { line = i - 1, character = col - 1 + (offset or 0) } end
  end
  fail('scenario anchor "' .. anchor .. '" is not in ' .. scenario.file)
end

local function describe(d)
  return string.format('%d:%d %s [%s] (%s) %s', d.lnum + 1, d.col + 1, tostring(d.source), tostring(d.code),
    tostring(d.severity), (d.message or ''):gsub('\n', ' '))
end

-- --- start --------------------------------------------------------------------
vim.cmd('filetype on')
-- Warnings and errors the server shows the user (e.g. a rejected setting) fail the test.
local shown_problems = {}
-- --test-commands: the server's warplens.debug.sleep job, for the progress/cancel check.
require('warplens').setup {
  cmd = { server, '--test-commands' },
  on_exit = function(code, signal) server_exit = { code = code, signal = signal } end,
  handlers = {
    ['window/showMessage'] = function(_, result)
      if result and result.type and result.type <= 2 then table.insert(shown_problems, result.message) end
    end,
  },
}
local path = workspace .. '/' .. scenario.file
vim.cmd('edit ' .. vim.fn.fnameescape(path))
local buf = vim.api.nvim_get_current_buf()
if vim.bo[buf].filetype ~= 'cuda' then fail('filetype of ' .. path .. ' is "' .. vim.bo[buf].filetype .. '", not cuda') end
local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)

wait_for('the warplens client to attach', function() return require('warplens').client(buf) ~= nil end, 10000)
local client = require('warplens').client(buf)
log('attached: ' .. server)
wait_for('the server to finish initialize', function() return client.initialized or client.server_capabilities ~= nil end)

-- --- status -------------------------------------------------------------------
wait_for('a warplens/status notification with state "ready"', function()
  local s = require('warplens').status[client.id]
  return s ~= nil and s.state == 'ready'
end)
log('status: ' .. require('warplens').statusline(buf))

-- --- diagnostics ----------------------------------------------------------------
local want = scenario.diagnostic
local want_pos = locate(lines, want.anchor, 0)
local function matching_diagnostics()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if (want.code == nil or d.code == want.code)
        and (want.source == nil or d.source == want.source)
        and (want.severity == nil or d.severity == want.severity)
        and (want.message_contains == nil or lower(d.message):find(lower(want.message_contains), 1, true))
        and d.lnum == want_pos.line then
      table.insert(found, d)
    end
  end
  return found
end
local ok = vim.wait(timeout_ms, function() return server_exit ~= nil or #matching_diagnostics() > 0 end, 50)
if server_exit then fail(server_died() .. ' before publishing diagnostics') end
if not ok then
  local seen = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(seen, describe(d)) end
  fail(string.format('no diagnostic %s at line %d within %d ms; diagnostics seen: %s', vim.inspect(want),
    want_pos.line + 1, timeout_ms, #seen > 0 and table.concat(seen, ' | ') or 'none'))
end
local diagnostic = matching_diagnostics()[1]
log('diagnostic: ' .. describe(diagnostic))

-- --- hover ----------------------------------------------------------------------
local hover_pos = locate(lines, scenario.hover.anchor, scenario.hover.offset)
local replies, err = vim.lsp.buf_request_sync(buf, 'textDocument/hover', {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = hover_pos,
}, timeout_ms)
if server_exit then fail(server_died() .. ' during hover') end
local reply = replies and replies[client.id]
if not reply then fail('no hover reply: ' .. tostring(err)) end
if reply.err then fail('hover failed: ' .. vim.inspect(reply.err)) end
if not (reply.result and reply.result.contents) then
  fail(string.format('empty hover at %d:%d', hover_pos.line + 1, hover_pos.character + 1))
end
local hover_text = table.concat(vim.lsp.util.convert_input_to_markdown_lines(reply.result.contents), '\n')
for _, expected in ipairs(scenario.hover.contains) do
  if not lower(hover_text):find(lower(expected), 1, true) then
    fail('hover lacks "' .. expected .. '"; hover was: ' .. hover_text)
  end
end
-- One message per hover: Neovim shows the diagnostic itself; the hover
-- explains it once, with each table once.
if hover_text:find(diagnostic.message, 1, true) then
  fail('the hover repeats the diagnostic message "' .. diagnostic.message .. '":\n' .. hover_text)
end
for _, s in ipairs(scenario.hover.not_contains or {}) do
  if hover_text:find(s, 1, true) then fail('the hover repeats "' .. s .. '":\n' .. hover_text) end
end
local seen_headers = {}
for line in hover_text:gmatch('[^\n]+') do
  if line:match('^|.*|$') and not line:match('^|[%s%-:|]+$') then
    local next_line = hover_text:match(vim.pesc(line) .. '\n(|[%s%-:|]+|)')
    if next_line then -- a header row (followed by the separator)
      if seen_headers[line] then fail('the hover shows the table "' .. line .. '" twice:\n' .. hover_text) end
      seen_headers[line] = true
    end
  end
end
local hover_lines = vim.split(hover_text, '\n', { plain = true })
log(string.format('hover (%d lines): %s', #hover_lines, hover_text:gsub('%s+', ' '):sub(1, 200)))

-- --- diagnostics stay while an edit is re-analysed (clangd's behaviour) --------------
-- An edit above the finding: until the new analysis (and nvcc) replace them,
-- the old diagnostics must stay, moved with the text; never a gap with none.
if scenario.steady then
  local function count()
    local n = 0
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == diagnostic.code and d.source == diagnostic.source then n = n + 1 end
    end
    return n
  end
  vim.api.nvim_buf_set_lines(buf, 0, 0, false, { (scenario.steady.text:gsub('\n$', '')) })
  local deadline = vim.loop.now() + (scenario.steady.watch_ms or 4000)
  local samples, moved = 0, false
  while vim.loop.now() < deadline do
    vim.wait(50)
    if server_exit then fail(server_died() .. ' after the edit') end
    samples = samples + 1
    if count() == 0 then
      fail(string.format('the %s diagnostic vanished %d ms after an edit (diagnostics must stay until new ones replace them)',
        diagnostic.code, (scenario.steady.watch_ms or 4000) - (deadline - vim.loop.now())))
    end
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == diagnostic.code and d.lnum == diagnostic.lnum + 1 then moved = true end
    end
  end
  if not moved then fail('after the edit the diagnostic did not move down with its line') end
  log(string.format('steady: %s stayed through the edit (%d samples)', diagnostic.code, samples))
  vim.api.nvim_buf_set_lines(buf, 0, 1, false, {})
  wait_for('the diagnostic back on its line after undoing the edit', function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == diagnostic.code and d.lnum == diagnostic.lnum then return true end
    end
  end)
end

-- --- the kernel report view, opened from the code lens ---------------------------------
local function report_buffer_text(kernel)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(b)
    if name:find('warplens-report://', 1, true) and (not kernel or name:sub(-#kernel - 1) == '#' .. kernel) then
      return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n'), b
    end
  end
end
if scenario.report_view then
  -- The lenses arrive on attach and are refreshed when the diagnostics change.
  local kernel_line = locate(lines, scenario.hover.anchor, 0).line
  local lens
  wait_for('a code lens with resource usage on the kernel', function()
    for _, l in ipairs(vim.lsp.codelens.get(buf)) do
      if l.range.start.line == kernel_line and l.command and l.command.title:find('regs', 1, true) then
        lens = l
        return true
      end
    end
  end)
  log('code lens: ' .. lens.command.title .. ' -> ' .. lens.command.command)
  vim.api.nvim_win_set_cursor(0, { kernel_line + 1, 0 })
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice) -- several lenses on the line: pick the resources one
    for _, item in ipairs(items) do
      local title = opts.format_item and opts.format_item(item) or tostring(item)
      if title:find('regs', 1, true) then return on_choice(item) end
    end
    on_choice(items[1])
  end
  vim.lsp.codelens.run()
  local text
  local function complete()
    text = report_buffer_text()
    if not text then return false end
    for _, want in ipairs(scenario.report_view.contains) do
      if not text:find(want, 1, true) then return false end
    end
    return true
  end
  if not vim.wait(30000, function() return server_exit ~= nil or complete() end, 100) then
    fail('the kernel report buffer lacks ' .. vim.inspect(scenario.report_view.contains) .. '; it is:\n' .. tostring(text))
  end
  vim.ui.select = select
  log('report view: ' .. text:gsub('%s+', ' '):sub(1, 160))
  if vim.env.E2E_ARTIFACTS then
    vim.fn.writefile(vim.split(text, '\n', { plain = true }), vim.env.E2E_ARTIFACTS .. '/nvim-report.md')
  end
  vim.cmd('only')
  vim.api.nvim_set_current_buf(buf)
end

-- --- an optimize result's before/after bars (a recorded result) -----------------------
if scenario.optimize_result then
  local here = vim.fn.fnamemodify(vim.env.E2E_SCENARIO, ':p:h:h')
  local result = vim.fn.json_decode(table.concat(vim.fn.readfile(here .. '/fixtures/' .. scenario.optimize_result.fixture), '\n'))
  require('warplens.commands').show_report(buf, { uri = vim.uri_from_bufnr(buf), kernel = result.kernel }, result)
  local text
  wait_for('the report buffer with the optimize bars', function()
    text = report_buffer_text(result.kernel)
    if not text then return false end
    for _, want in ipairs(scenario.optimize_result.contains) do
      if not text:find(want, 1, true) then return false end
    end
    for _, c in ipairs(result.candidates) do
      if not text:find(string.format('%.3f ms', c.after_ms), 1, true) then return false end
    end
    return true
  end, 30000)
  log('optimize bars: ' .. #result.candidates .. ' candidates drawn')
  if vim.env.E2E_ARTIFACTS then
    vim.fn.writefile(vim.split(text, '\n', { plain = true }), vim.env.E2E_ARTIFACTS .. '/nvim-optimize-report.md')
  end
  vim.cmd('only')
  vim.api.nvim_set_current_buf(buf)
end

-- --- "Optimize kernel" without a GPU: its error, said once ----------------------------
-- (run.sh sets WARPLENS_PROFILE_ASSUME_NO_GPU=1, so this holds on a GPU machine too)
if scenario.optimize_error then
  local said = {}
  local notify = vim.notify
  vim.notify = function(msg, level)
    if level == vim.log.levels.ERROR then table.insert(said, msg) end
    notify(msg, level)
  end
  local shown_before = #shown_problems
  vim.api.nvim_win_set_cursor(0, { locate(lines, scenario.hover.anchor, 0).line + 1, 0 })
  vim.cmd('WarplensOptimize')
  wait_for('the optimize job to fail', function() return #said > 0 end, 60000)
  vim.wait(1000) -- a second message (window/showMessage) would arrive by now
  vim.notify = notify
  local matching = 0
  for _, m in ipairs(said) do
    if m:find(scenario.optimize_error.contains, 1, true) then matching = matching + 1 end
  end
  for i = shown_before + 1, #shown_problems do
    if shown_problems[i]:find(scenario.optimize_error.contains, 1, true) then matching = matching + 1 end
  end
  if matching ~= 1 then
    fail(string.format('the optimize error was shown %d times: %s', matching, table.concat(said, ' | ')))
  end
  -- Not a problem of the test: leave shown_problems as they were.
  for i = #shown_problems, shown_before + 1, -1 do table.remove(shown_problems, i) end
  log('optimize without a GPU: one error: ' .. said[1]:sub(1, 120))
end

-- --- code action, through Neovim's own code_action flow -------------------------
local want_action = scenario.code_action
if want_action then
  local offered, chosen = {}, nil
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      local title = opts.format_item and opts.format_item(item) or tostring(item)
      table.insert(offered, title)
      if not chosen and (want_action.title_contains == nil
          or lower(title):find(lower(want_action.title_contains), 1, true)) then
        chosen = title
        on_choice(item)
        return
      end
    end
    on_choice(nil)
  end
  vim.api.nvim_win_set_cursor(0, { diagnostic.lnum + 1, diagnostic.col })
  -- As a user would: no explicit context, so Neovim sends the diagnostics on the cursor line.
  vim.lsp.buf.code_action()
  wait_for('code actions to be offered', function() return #offered > 0 end)
  if not chosen then
    fail('no code action titled like "' .. tostring(want_action.title_contains) .. '"; offered: ' .. table.concat(offered, ' | '))
  end
  log('code action: ' .. chosen)
  local function buffer_text() return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') end
  local applied = vim.wait(timeout_ms, function() return buffer_text():find(want_action.after_contains, 1, true) ~= nil end, 50)
  if not applied then
    fail('after "' .. chosen .. '" the buffer lacks "' .. want_action.after_contains .. '"; buffer is:\n' .. buffer_text())
  end
  log('edit applied')

  -- --- the diagnostic clears --------------------------------------------------------
  local function still_there()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == diagnostic.code and d.source == diagnostic.source and d.message == diagnostic.message then return d end
    end
  end
  ok = vim.wait(timeout_ms, function() return server_exit ~= nil or still_there() == nil end, 50)
  if server_exit then fail(server_died() .. ' after the edit') end
  if not ok then fail('the diagnostic did not clear after the fix: ' .. describe(still_there())) end
  log('diagnostic cleared')
else
  log('no code_action in this scenario')
end

-- --- the kernel report (:WarplensReport), when the scenario asks for it -------------
if scenario.report then
  vim.cmd('WarplensReport')
  local report_buf
  wait_for('the :WarplensReport buffer', function()
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_get_name(b):find('warplens-report://', 1, true) then report_buf = b return true end
    end
  end)
  local report = table.concat(vim.api.nvim_buf_get_lines(report_buf, 0, -1, false), '\n')
  for _, expected in ipairs(scenario.report.contains) do
    if not report:find(expected, 1, true) then fail('the kernel report lacks "' .. expected .. '":\n' .. report) end
  end
  log('report: ' .. report:gsub('%s+', ' '):sub(1, 160))
end

-- --- a long job: progress reaches the message area, :WarplensCancel stops it ----------
local notes, progress_seen, job_done = {}, {}, false
if scenario.jobs ~= false then
local notify = vim.notify
vim.notify = function(msg, level)
  table.insert(notes, msg)
  notify(msg, level)
end
vim.api.nvim_create_autocmd('User', { pattern = 'LspProgressUpdate', callback = function()
  for _, m in ipairs(vim.lsp.util.get_progress_messages()) do
    if m.name == 'warplens' and m.message then table.insert(progress_seen, m.message) end
  end
end })
require('warplens.commands').run_job(buf, 'test job', 'warplens.debug.sleep', { { ms = 60000, steps = 60 } },
  function() job_done = true end)
wait_for('$/progress reports from a running job', function() return #progress_seen > 0 end, 20000)
log('job progress: ' .. progress_seen[#progress_seen])
vim.cmd('WarplensCancel')
local function job_cancelled()
  for _, n in ipairs(notes) do
    if n:find('test job: cancelled', 1, true) then return true end
  end
end
if not job_cancelled() then fail(':WarplensCancel did not report the job cancelled; messages: ' .. table.concat(notes, ' | ')) end
-- The server side: no job left running (warplens.listJobs).
local function running_jobs()
  local r = vim.lsp.buf_request_sync(buf, 'workspace/executeCommand', { command = 'warplens.listJobs', arguments = {} }, 5000)
  local reply = r and r[client.id]
  if not reply or reply.err then fail('warplens.listJobs failed: ' .. vim.inspect(reply)) end
  return reply.result or {}
end
wait_for('the server to stop the cancelled job (warplens.listJobs empty)', function() return #running_jobs() == 0 end, 20000)
if job_done then fail('the job ran to completion despite :WarplensCancel') end
vim.notify = notify
log('job cancelled')
end

if #shown_problems > 0 then
  fail('the server showed warnings/errors: ' .. table.concat(shown_problems, ' | '))
end

-- --- shutdown ----------------------------------------------------------------------
vim.lsp.stop_client(client.id)
vim.wait(5000, function() return server_exit ~= nil end, 50)
log('PASS ' .. vim.fn.fnamemodify(vim.env.E2E_SCENARIO, ':t:r'))
vim.cmd('qa!')
