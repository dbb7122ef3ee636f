-- Drives a real (terminal) Neovim through the pictures docs/editors.md shows:
-- the file with its diagnostics and code lenses, the kernel hover, and the
-- kernel report buffer. Run by screenshot.sh inside tmux, which captures the
-- terminal whenever this writes a step's name to $SHOT_MARKER and waits for
-- $SHOT_MARKER.done. Not a test: the headless e2e.lua checks the same things.
local file = assert(vim.env.SHOT_FILE)
local marker = assert(vim.env.SHOT_MARKER)
local steps = {}
local function ready(name, next_step)
  vim.cmd('redraw!')
  local f = io.open(marker, 'w')
  f:write(name)
  f:close()
  local timer = vim.loop.new_timer()
  timer:start(100, 100, vim.schedule_wrap(function()
    if vim.loop.fs_stat(marker .. '.done') then
      timer:stop()
      os.remove(marker .. '.done')
      next_step()
    end
  end))
end

local function when(cond, then_do, tries)
  tries = tries or 600
  if cond() then return then_do() end
  if tries == 0 then
    io.stderr:write('screenshot: gave up waiting\n')
    vim.cmd('cquit 1')
  end
  vim.defer_fn(function() when(cond, then_do, tries - 1) end, 100)
end

vim.o.number = true
vim.o.signcolumn = 'yes'
vim.o.laststatus = 2
vim.o.statusline = "%f %= %{luaeval('require(\"warplens\").statusline()')} "
require('warplens').setup { cmd = { assert(vim.env.SHOT_SERVER) } }
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()

local function has_lens()
  for _, l in ipairs(vim.lsp.codelens.get(buf)) do
    if l.command and l.command.title:find('regs', 1, true) then return true end
  end
end

function steps.diagnostics()
  when(function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == vim.env.SHOT_CODE then return has_lens() end
    end
  end, function() ready('diagnostics', steps.hover) end)
end

function steps.hover()
  local line = vim.fn.search(vim.env.SHOT_HOVER, 'nw')
  vim.api.nvim_win_set_cursor(0, { line, vim.fn.match(vim.fn.getline(line), vim.env.SHOT_HOVER) + 1 })
  vim.lsp.buf.hover()
  vim.defer_fn(function() ready('hover', steps.report) end, 1500)
end

function steps.report()
  for _, w in ipairs(vim.api.nvim_list_wins()) do -- the hover float (:fclose is 0.10+)
    if vim.api.nvim_win_get_config(w).relative ~= '' then vim.api.nvim_win_close(w, true) end
  end
  vim.cmd('WarplensReport')
  when(function()
    return vim.api.nvim_buf_get_name(0):find('warplens-report://', 1, true) ~= nil
  end, function()
    vim.cmd('wincmd L')
    vim.cmd('vertical resize 100')
    ready('report', function() vim.cmd('qa!') end)
  end)
end

steps.diagnostics()
