-- User commands: :WarplensOptimize, :WarplensProfile, :WarplensReport,
-- :WarplensReportJson, :WarplensReanalyze, :WarplensClearProfile,
-- :WarplensJobs, :WarplensCancel, :WarplensStatus (one per server command). Long jobs (optimize, profile) run as one
-- workspace/executeCommand request carrying a workDoneToken, so the server's
-- $/progress reports show up (see progress.lua); :WarplensCancel cancels the
-- request ($/cancelRequest) and asks the server to stop the job
-- (warplens.cancelJob), so it works whether or not the request is in flight.
local M = {}

local request_cancelled = -32800
local next_token = 1
local running = nil -- { client, request_id, title }

local function notify(msg, level)
  vim.notify('warplens: ' .. msg, level or vim.log.levels.INFO)
end

local function warplens_client(bufnr)
  local client = require('warplens').client(bufnr)
  if not client then notify('no warplens server attached to this buffer', vim.log.levels.ERROR) end
  return client
end

-- The target of a command: this buffer, the cursor, and an optional kernel name.
local function target(bufnr, kernel)
  local cursor = vim.api.nvim_win_get_cursor(0)
  local line = vim.api.nvim_buf_get_lines(bufnr, cursor[1] - 1, cursor[1], false)[1] or ''
  local t = {
    uri = vim.uri_from_bufnr(bufnr),
    position = { line = cursor[1] - 1, character = vim.str_utfindex(line, cursor[2]) },
  }
  if kernel and kernel ~= '' then t.kernel = kernel end
  return t
end

local function summary_of(result)
  if type(result) == 'string' then return result end
  if type(result) == 'table' and type(result.summary) == 'string' then return result.summary end
  return nil
end

-- Runs one long server command; on_result(result) on success.
function M.run_job(bufnr, title, command, args, on_result)
  local client = warplens_client(bufnr)
  if not client then return end
  if running then
    notify(running.title .. ' is still running (:WarplensCancel to stop it)', vim.log.levels.WARN)
    return
  end
  local token = 'warplens-nvim-job-' .. next_token
  next_token = next_token + 1
  local job = { client = client, title = title }
  local ok, request_id = require('warplens').request(client, 'workspace/executeCommand',
    { command = command, arguments = args, workDoneToken = token },
    function(err, result)
      if running == job then running = nil end
      if job.cancelled then return end -- a late answer to a job the user cancelled
      if err then
        if err.code == request_cancelled then
          notify(title .. ': cancelled')
        else
          notify(title .. ' failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        end
        return
      end
      on_result(result)
    end, bufnr)
  if not ok then
    notify(title .. ': the server is not running', vim.log.levels.ERROR)
    return
  end
  job.request_id = request_id
  running = job
  notify(title .. '… (:WarplensCancel to stop)')
end

function M.optimize(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  M.optimize_target(bufnr, target(bufnr, opts and opts.args))
end

-- The server's "Optimize kernel `name`" code action runs the client-side
-- command warplens.optimizeKernel {uri, kernel}: the same job, progress,
-- cancel and preview as :WarplensOptimize.
function M.optimize_kernel_command(command, ctx)
  local arg = command.arguments and command.arguments[1] or {}
  local bufnr = (arg.uri and vim.uri_to_bufnr(arg.uri)) or (ctx and ctx.bufnr) or vim.api.nvim_get_current_buf()
  M.optimize_target(bufnr, arg)
end

function M.optimize_target(bufnr, job_target)
  M.run_job(bufnr, 'optimizing kernel', 'warplens.optimize', { job_target }, function(result)
    local rewrites = type(result) == 'table' and result.rewrites or {}
    local summary = summary_of(result) or (#rewrites .. ' verified rewrite(s)')
    -- Every candidate's before/after bars, in the kernel's report buffer.
    if type(result) == 'table' and result.candidates and #result.candidates > 0 then
      M.show_report(bufnr, { uri = job_target.uri, kernel = result.kernel }, result)
    end
    if #rewrites == 0 then
      notify(summary)
      return
    end
    vim.ui.select(rewrites, {
      prompt = 'warplens: ' .. summary .. ' — preview which rewrite?',
      format_item = function(r) return r.title end,
    }, function(choice)
      if choice then
        local client = require('warplens').client(bufnr)
        if client then require('warplens.preview').show(client, choice) end
      end
    end)
  end)
end

function M.profile()
  local bufnr = vim.api.nvim_get_current_buf()
  M.run_job(bufnr, 'profiling', 'warplens.profile', { target(bufnr) }, function(result)
    notify(summary_of(result) or 'profile finished; measured findings are shown as diagnostics')
  end)
end

-- Neovim drops the callback of a request answered with RequestCancelled, so
-- the job is marked cancelled here rather than when the server answers.
function M.cancel()
  local job = running
  local client = job and job.client or require('warplens').client(0)
  if not client then
    notify('nothing to cancel')
    return
  end
  if job and job.request_id then require('warplens').cancel_request(client, job.request_id) end
  require('warplens').request(client, 'workspace/executeCommand', { command = 'warplens.cancelJob', arguments = {} }, function(err)
    if err and err.code ~= request_cancelled then
      notify('cancel failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
  end)
  running = nil
  if job then
    job.cancelled = true
    notify(job.title .. ': cancelled')
  else
    notify('cancel requested')
  end
end

-- The kernel report view (a markdown buffer, warplens/report.lua) of the
-- kernel `target` names, from warplens.kernelView; `optimize` adds bars.
function M.show_report(bufnr, report_target, optimize)
  local client = warplens_client(bufnr)
  if not client then return end
  local source = vim.api.nvim_buf_get_name(bufnr)
  require('warplens').request(client, 'workspace/executeCommand',
    { command = 'warplens.kernelView', arguments = { report_target } },
    function(err, view)
      if err then
        notify('no kernel report: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        return
      end
      require('warplens.report').show(view, optimize, source)
    end, bufnr)
end

function M.report(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  M.show_report(bufnr, target(bufnr, opts and opts.args))
end

-- warplens.showKernelReport {uri, kernel}: what a code lens runs
-- (vim.lsp.codelens.run()).
function M.show_kernel_report_command(command, ctx)
  local arg = command.arguments and command.arguments[1] or {}
  local bufnr = (arg.uri and vim.uri_to_bufnr(arg.uri)) or (ctx and ctx.bufnr) or vim.api.nvim_get_current_buf()
  M.show_report(bufnr, { uri = arg.uri or vim.uri_from_bufnr(bufnr), kernel = arg.kernel })
end

-- The whole file's report as JSON (warplens.report), for scripts and bugs.
function M.report_json(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = warplens_client(bufnr)
  if not client then return end
  local source = vim.api.nvim_buf_get_name(bufnr)
  require('warplens').request(client, 'workspace/executeCommand',
    { command = 'warplens.report', arguments = { target(bufnr, opts and opts.args) } },
    function(err, result)
      if err then
        notify('no kernel report: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        return
      end
      local text = type(result) == 'string' and result or require('warplens.json').pretty(result)
      vim.cmd('vsplit')
      local report = vim.api.nvim_create_buf(false, true)
      vim.api.nvim_win_set_buf(0, report)
      vim.api.nvim_buf_set_lines(report, 0, -1, false, vim.split(text, '\n', { plain = true }))
      vim.bo[report].filetype = 'json'
      vim.bo[report].modifiable = false
      pcall(vim.api.nvim_buf_set_name, report, 'warplens-report-json://' .. source)
    end, bufnr)
end

-- A quick server command (not a job): its error is shown once.
local function quick(bufnr, command, args, done)
  local client = warplens_client(bufnr)
  if not client then return end
  require('warplens').request(client, 'workspace/executeCommand', { command = command, arguments = args },
    function(err, result)
      if err then
        notify(command .. ' failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        return
      end
      if done then done(result) end
    end, bufnr)
end

function M.reanalyze(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  local all = opts and opts.bang
  quick(bufnr, 'warplens.reanalyze', { all and vim.empty_dict() or { uri = vim.uri_from_bufnr(bufnr) } },
    function() notify(all and 're-analysing all open files' or 're-analysing this file') end)
end

function M.clear_profile(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  local all = opts and opts.bang
  quick(bufnr, 'warplens.clearProfile', { all and vim.empty_dict() or { uri = vim.uri_from_bufnr(bufnr) } },
    function() notify(all and 'measured results cleared' or 'measured results of this file cleared') end)
end

function M.jobs()
  local bufnr = vim.api.nvim_get_current_buf()
  quick(bufnr, 'warplens.listJobs', {}, function(jobs)
    if not jobs or #jobs == 0 then
      notify('no job is running')
      return
    end
    vim.ui.select(jobs, {
      prompt = 'warplens: cancel which job?',
      format_item = function(j) return j.title .. (j.running and ' (running)' or ' (queued)') end,
    }, function(choice)
      if choice then quick(bufnr, 'warplens.cancelJob', { { id = choice.id } }) end
    end)
  end)
end

function M.show_status()
  local line = require('warplens').statusline(0)
  notify(line ~= '' and (line:gsub('^warplens: ', '')) or 'no warplens server attached to this buffer')
end

function M.register()
  local create = vim.api.nvim_create_user_command
  create('WarplensOptimize', M.optimize, { nargs = '?', desc = 'warplens: optimize the kernel at the cursor (or the named kernel)' })
  create('WarplensProfile', M.profile, { nargs = 0, desc = 'warplens: profile this file\'s program' })
  create('WarplensReport', M.report, { nargs = '?', desc = 'warplens: the kernel report (occupancy, roofline)' })
  create('WarplensReportJson', M.report_json, { nargs = '?', desc = 'warplens: the file report as JSON' })
  create('WarplensReanalyze', M.reanalyze, { nargs = 0, bang = true, desc = 'warplens: re-analyse this file (! all)' })
  create('WarplensClearProfile', M.clear_profile, { nargs = 0, bang = true,
    desc = 'warplens: forget measured results of this file (! all)' })
  create('WarplensJobs', M.jobs, { nargs = 0, desc = 'warplens: running jobs (pick one to cancel it)' })
  create('WarplensCancel', M.cancel, { nargs = 0, desc = 'warplens: cancel the running job' })
  create('WarplensStatus', M.show_status, { nargs = 0, desc = 'warplens: show the server state' })
end

return M
