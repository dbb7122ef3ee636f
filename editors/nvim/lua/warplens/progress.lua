-- Shows the server's work-done progress (parsing, profiling, optimizing) in
-- the message area. Neovim 0.7-0.9 fire `User LspProgressUpdate` and keep the
-- messages in the client; 0.10+ fire `LspProgress` with the value attached.
local M = {}

local function echo(text)
  -- Truncated to one line so it never triggers a hit-enter prompt.
  local width = math.max(vim.o.columns - 12, 20)
  if #text > width then text = text:sub(1, width - 1) .. '…' end
  vim.api.nvim_echo({ { text, 'ModeMsg' } }, false, {})
end

local function format(title, message, percentage, done)
  local text = 'warplens: ' .. (title or 'working')
  if message and message ~= '' then text = text .. ': ' .. message end
  if percentage then text = text .. string.format(' (%d%%)', percentage) end
  if done then text = text .. ' — done' end
  return text
end

local function on_legacy_update()
  for _, msg in ipairs(vim.lsp.util.get_progress_messages()) do
    if msg.name == 'warplens' and msg.progress then
      echo(format(msg.title, msg.message, msg.percentage, msg.done))
    end
  end
end

local function on_progress(ev)
  local client = ev.data and ev.data.client_id and vim.lsp.get_client_by_id(ev.data.client_id)
  if not client or client.name ~= 'warplens' then return end
  local value = ev.data.params and ev.data.params.value or {}
  M.titles = M.titles or {}
  local token = ev.data.params.token
  if value.kind == 'begin' then M.titles[token] = value.title end
  echo(format(M.titles[token] or value.title, value.message, value.percentage, value.kind == 'end'))
  if value.kind == 'end' then M.titles[token] = nil end
end

function M.register(group)
  if vim.fn.has('nvim-0.10') == 1 then
    vim.api.nvim_create_autocmd('LspProgress', { group = group, callback = on_progress })
  else
    vim.api.nvim_create_autocmd('User', { group = group, pattern = 'LspProgressUpdate', callback = on_legacy_update })
  end
end

return M
