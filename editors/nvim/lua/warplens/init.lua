-- warplens for Neovim: starts the warplens language server for the `cuda`
-- filetype and adds a command per server command (:WarplensOptimize,
-- :WarplensProfile, :WarplensReport, :WarplensReanalyze, ...; see
-- :help warplens). Works on Neovim 0.7 (start_client + buf_attach_client),
-- 0.8+ (vim.lsp.start) and 0.11+ (lsp/warplens.lua for vim.lsp.enable).
--
-- On attach it keeps code lenses fresh (on attach, on entering the buffer,
-- after insert mode, and whenever the buffer's diagnostics change: the
-- server republishes them when resource usage arrives, which is when the
-- lenses change too) and resolves `clangDiagnostics = 'auto'`: off while
-- clangd is attached to a CUDA buffer of the same server, so Clang's errors
-- are not shown twice.
--
--   require('warplens').setup {
--     cmd = { '/path/to/warplens' },            -- default: { 'warplens' }
--     settings = { arch = 'sm_80', thresholds = { bankConflict = 4 } },
--   }
local M = {}

local defaults = {
  cmd = { 'warplens' },
  filetypes = { 'cuda' },
  root_markers = { 'compile_commands.json', '.git' },
  -- Sent as initializationOptions.warplens and workspace/didChangeConfiguration
  -- settings.warplens; see docs/editors.md for the keys.
  settings = {},
  -- Extra environment for the server (e.g. WARPLENS_LLM_API_KEY from a
  -- password manager); the key is never written to settings or logs.
  cmd_env = nil,
  on_attach = nil,
  capabilities = nil,
  handlers = {},
  -- Called as on_exit(code, signal, client_id) when the server exits.
  on_exit = nil,
  -- false: register the commands, progress display and rewrite preview only,
  -- and let another launcher (nvim-lspconfig, vim.lsp.enable) start the
  -- server; pass `handlers = require('warplens').handlers` to it.
  autostart = true,
}

M.config = vim.deepcopy(defaults)

-- Latest `warplens/status` payload per client id.
M.status = {}

local function notify(msg, level)
  vim.notify('warplens: ' .. msg, level or vim.log.levels.INFO)
end

local function find_root(bufnr)
  local file = vim.api.nvim_buf_get_name(bufnr)
  local dir = file ~= '' and vim.fn.fnamemodify(file, ':p:h') or vim.fn.getcwd()
  for _, marker in ipairs(M.config.root_markers) do
    local hit = vim.fn.findfile(marker, dir .. ';')
    if hit ~= '' then return vim.fn.fnamemodify(hit, ':p:h') end
    hit = vim.fn.finddir(marker, dir .. ';')
    if hit ~= '' then return vim.fn.fnamemodify(hit, ':p:h:h') end -- ':p' of a dir ends in '/'
  end
  return dir
end

local function status_handler(_, result, ctx)
  M.status[ctx.client_id] = result
  vim.api.nvim_exec_autocmds('User', { pattern = 'WarplensStatus', modeline = false })
end

-- Hover floats no taller than 60% of the screen (scrolling inside, as
-- Neovim's float does when it is capped): a kernel's card and resources
-- would otherwise run off a small terminal. Neovim 0.11's vim.lsp.buf.hover()
-- no longer goes through handlers: map K to
-- `vim.lsp.buf.hover({ max_height = 25 })` there.
local function hover_handler(err, result, ctx, config)
  config = vim.tbl_extend('force', config or {}, {
    max_height = math.max(10, math.floor(vim.o.lines * 0.6)),
    max_width = math.max(40, math.floor(vim.o.columns * 0.8)),
  })
  return vim.lsp.handlers.hover(err, result, ctx, config)
end

--- Handlers for warplens's own notifications (and its hover float size),
--- for clients started elsewhere.
M.handlers = { ['warplens/status'] = status_handler, ['textDocument/hover'] = hover_handler }

--- For clients started elsewhere (lsp/warplens.lua, nvim-lspconfig): the
--- commands, progress display and client-side commands, once, without
--- starting a server.
function M.ensure_commands()
  if M._commands_registered then return end
  M._commands_registered = true
  local group = vim.api.nvim_create_augroup('warplens', { clear = false })
  require('warplens.commands').register()
  require('warplens.progress').register(group)
  M.register_client_commands()
end

local function clients_of(bufnr)
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = bufnr }) end -- 0.10+
  return vim.lsp.buf_get_clients(bufnr)
end

--- Is clangd attached to `bufnr` (or, without one, to any loaded CUDA buffer)?
function M.clangd_attached(bufnr)
  local bufs = bufnr and { bufnr } or vim.api.nvim_list_bufs()
  for _, b in ipairs(bufs) do
    if vim.api.nvim_buf_is_loaded(b) and (bufnr or vim.tbl_contains(M.config.filetypes, vim.bo[b].filetype)) then
      for _, c in pairs(clients_of(b)) do
        if c.name == 'clangd' then return true end
      end
    end
  end
  return false
end

--- The settings sent to the server: the configured ones, with
--- clangDiagnostics 'auto' (or unset) resolved to 'off' while clangd is
--- attached to a CUDA buffer, else 'on'. An empty table is sent as an object.
function M.effective_settings()
  local s = vim.deepcopy(M.config.settings or {})
  if s.clangDiagnostics == nil or s.clangDiagnostics == 'auto' then
    s.clangDiagnostics = M.clangd_attached() and 'off' or 'on'
  end
  return s
end

local function settings_object()
  local s = M.effective_settings()
  return next(s) == nil and vim.empty_dict() or s
end

local function notify_client(client, method, params)
  if vim.fn.has('nvim-0.11') == 1 then return client:notify(method, params) end
  return client.notify(method, params)
end

-- Re-sends the settings when what 'auto' means changed (clangd attached or left).
local last_clang = {}
function M.refresh_clang_setting(client)
  local s = M.effective_settings()
  if last_clang[client.id] == s.clangDiagnostics then return end
  last_clang[client.id] = s.clangDiagnostics
  client.config.settings = { warplens = s } -- what a workspace/configuration pull answers
  notify_client(client, 'workspace/didChangeConfiguration', { settings = { warplens = s } })
end

local function refresh_lenses(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.api.nvim_get_current_buf() ~= bufnr then return end
  if vim.fn.has('nvim-0.10') == 1 then
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
  else
    pcall(vim.lsp.codelens.refresh) -- 0.7-0.9: the current buffer
  end
end

local attached = {}

--- What warplens does when its client attaches to a buffer (also for
--- clients started by nvim-lspconfig or vim.lsp.enable: pass it as on_attach,
--- or let lsp/warplens.lua do so).
function M.on_attach(client, bufnr)
  if not attached[bufnr] then
    attached[bufnr] = true
    local group = vim.api.nvim_create_augroup('warplens_buffer_' .. bufnr, { clear = true })
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'DiagnosticChanged' }, {
      group = group,
      buffer = bufnr,
      callback = function() refresh_lenses(bufnr) end,
    })
    vim.api.nvim_create_autocmd('BufEnter', {
      group = group,
      buffer = bufnr,
      callback = function()
        local c = M.client(bufnr)
        if c then M.refresh_clang_setting(c) end
      end,
    })
    vim.api.nvim_create_autocmd({ 'BufDelete', 'BufWipeout' }, {
      group = group,
      buffer = bufnr,
      callback = function() attached[bufnr] = nil end,
    })
  end
  refresh_lenses(bufnr)
  -- clangd often attaches a moment after warplens.
  M.refresh_clang_setting(client)
  for _, ms in ipairs({ 1000, 5000 }) do
    vim.defer_fn(function()
      if vim.lsp.get_client_by_id(client.id) then M.refresh_clang_setting(client) end
    end, ms)
  end
end

-- The client-side commands the server puts into code actions and lenses.
function M.register_client_commands()
  vim.lsp.commands['warplens.previewRewrite'] = require('warplens.preview').command
  vim.lsp.commands['warplens.optimizeKernel'] = require('warplens.commands').optimize_kernel_command
  vim.lsp.commands['warplens.showKernelReport'] = require('warplens.commands').show_kernel_report_command
end

local function client_config(root_dir)
  local handlers = vim.tbl_extend('force', { ['warplens/status'] = status_handler, ['textDocument/hover'] = hover_handler },
    M.config.handlers)
  return {
    name = 'warplens',
    cmd = M.config.cmd,
    cmd_env = M.config.cmd_env,
    root_dir = root_dir,
    init_options = { warplens = settings_object() },
    settings = { warplens = settings_object() },
    capabilities = M.config.capabilities,
    handlers = handlers,
    on_attach = function(client, bufnr)
      M.on_attach(client, bufnr)
      if M.config.on_attach then M.config.on_attach(client, bufnr) end
    end,
    on_exit = function(code, signal, client_id)
      M.status[client_id] = nil
      if code ~= 0 or signal ~= 0 then
        vim.schedule(function()
          notify(string.format('server exited (code %d, signal %d); see :lua vim.cmd("edit " .. vim.lsp.get_log_path())',
            code, signal), vim.log.levels.ERROR)
        end)
      end
      if M.config.on_exit then M.config.on_exit(code, signal, client_id) end
    end,
  }
end

-- Neovim 0.7 has no vim.lsp.start: keep one client per root directory.
local clients_by_root = {}

local function start_07(bufnr, root_dir)
  local id = clients_by_root[root_dir]
  if not (id and vim.lsp.get_client_by_id(id) and not vim.lsp.client_is_stopped(id)) then
    if vim.fn.executable(M.config.cmd[1]) ~= 1 then
      notify('server not found: ' .. M.config.cmd[1] .. ' (set cmd in require("warplens").setup)', vim.log.levels.ERROR)
      return nil
    end
    id = vim.lsp.start_client(client_config(root_dir))
    if not id then return nil end
    clients_by_root[root_dir] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- Starts (or reuses) the server for `bufnr` and attaches it. Returns the client id.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local root_dir = find_root(bufnr)
  if vim.lsp.start then
    return vim.lsp.start(client_config(root_dir), { bufnr = bufnr })
  end
  return start_07(bufnr, root_dir)
end

--- The warplens client attached to `bufnr`, if any.
function M.client(bufnr)
  bufnr = bufnr or 0
  if bufnr == 0 then bufnr = vim.api.nvim_get_current_buf() end
  for _, client in pairs(clients_of(bufnr)) do
    if client.name == 'warplens' then return client end
  end
  return nil
end

--- client:request on 0.11+ (the dot form is deprecated there), client.request before.
function M.request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then return client:request(method, params, handler, bufnr) end
  return client.request(method, params, handler, bufnr)
end

function M.cancel_request(client, id)
  if vim.fn.has('nvim-0.11') == 1 then return client:cancel_request(id) end
  return client.cancel_request(id)
end

--- One-line state for a statusline: "warplens: ready · CUDA 13.0 · no GPU".
function M.statusline(bufnr)
  local client = M.client(bufnr)
  if not client then return '' end
  local s = M.status[client.id]
  if not s then return 'warplens: starting' end
  local parts = { 'warplens: ' .. tostring(s.state) }
  if s.state ~= 'starting' then
    if s.degraded or not s.cudaFound then
      table.insert(parts, 'degraded (no CUDA)')
    else
      table.insert(parts, s.cudaVersion and ('CUDA ' .. s.cudaVersion) or 'CUDA')
    end
    local gpu = type(s.gpu) == 'table' and s.gpu.name or s.gpu
    table.insert(parts, type(gpu) == 'string' and gpu ~= '' and ('GPU ' .. gpu) or 'no GPU')
  end
  return table.concat(parts, ' · ')
end

function M.setup(opts)
  M._commands_registered = true
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if type(M.config.cmd) == 'string' then M.config.cmd = { M.config.cmd } end
  local group = vim.api.nvim_create_augroup('warplens', { clear = true })
  require('warplens.commands').register()
  require('warplens.progress').register(group)
  M.register_client_commands()
  if vim.fn.has('nvim-0.8') == 1 then
    -- clangd attaching to (or leaving) a CUDA buffer changes what 'auto' means.
    vim.api.nvim_create_autocmd({ 'LspAttach', 'LspDetach' }, {
      group = group,
      callback = function(args)
        local c = M.client(args.buf)
        if c then vim.schedule(function() M.refresh_clang_setting(c) end) end
      end,
    })
  end
  if not M.config.autostart then return end
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args) M.attach(args.buf) end,
  })
  -- Buffers already open with a matching filetype (setup called late).
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(M.config.filetypes, vim.bo[buf].filetype) then
      M.attach(buf)
    end
  end
end

return M
