-- warplens for Neovim: starts the warplens language server for the `cuda`
-- filetype and adds :WarplensOptimize, :WarplensProfile, :WarplensReport,
-- :WarplensCancel and :WarplensStatus. Works on Neovim 0.7 (start_client +
-- buf_attach_client) and on 0.8+ (vim.lsp.start).
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

--- Handlers for warplens's own notifications, for clients started elsewhere.
M.handlers = { ['warplens/status'] = status_handler }

-- An empty Lua table would be sent as a JSON array; the server wants an object.
local function settings_object()
  return next(M.config.settings) == nil and vim.empty_dict() or M.config.settings
end

local function client_config(root_dir)
  local handlers = vim.tbl_extend('force', { ['warplens/status'] = status_handler }, M.config.handlers)
  return {
    name = 'warplens',
    cmd = M.config.cmd,
    cmd_env = M.config.cmd_env,
    root_dir = root_dir,
    init_options = { warplens = settings_object() },
    settings = { warplens = settings_object() },
    capabilities = M.config.capabilities,
    handlers = handlers,
    on_attach = M.config.on_attach,
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
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) -- 0.10+
    or vim.lsp.buf_get_clients(bufnr)
  for _, client in pairs(clients) do
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
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if type(M.config.cmd) == 'string' then M.config.cmd = { M.config.cmd } end
  local group = vim.api.nvim_create_augroup('warplens', { clear = true })
  require('warplens.commands').register()
  require('warplens.progress').register(group)
  vim.lsp.commands['warplens.previewRewrite'] = require('warplens.preview').command
  vim.lsp.commands['warplens.optimizeKernel'] = require('warplens.commands').optimize_kernel_command
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
