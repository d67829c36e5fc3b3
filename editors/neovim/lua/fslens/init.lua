-- fslens for Neovim: starts `fslens` (an LSP proxy in front of FsAutoComplete) as the F#
-- language server and adds :FslensFind, :FslensCheck, :FslensFieldImpact,
-- :FslensMakeVisible, :FslensRename, :FslensCallers, :FslensCallees, :FslensImplementations,
-- :FslensTypeHierarchy, :FslensTestsForSymbol, :FslensRunTests, :FslensAffectedTests, :FslensStatus
-- and :FslensRestart.
--
-- Works on Neovim 0.7 (vim.lsp.start_client + buf_attach_client on FileType fsharp) and on
-- 0.8 and newer (vim.lsp.start), through setup(); on 0.11 and newer also without setup(), by
-- vim.lsp.enable("fslens") (lsp/fslens.lua). See editors/README.md.

local M = {}

M.config = {
  -- The fslens executable, or a full command list ({ "/path/to/fslens", "--log-level", "info" }).
  cmd = "fslens",
  -- The FsAutoComplete command line (passed as `--fsac`); nil lets fslens find it
  -- ($FSLENS_FSAC, `fsautocomplete` on PATH, else `dotnet fsautocomplete`).
  fsac = nil,
  -- Extra FsAutoComplete arguments, appended to `fsac` (which defaults to "fsautocomplete"
  -- when only these are given).
  fsac_args = {},
  -- Restart FsAutoComplete once its resident memory exceeds this (`--fsac-memory-limit`):
  -- "4GiB", "3000MB" or a share of physical memory like "60%"; nil: no limit.
  fsac_memory_limit = nil,
  -- Extra fslens arguments (e.g. { "--log-file", "/tmp/fslens.log" }).
  args = {},
  root_markers = { "*.sln", "*.slnx", "*.fsproj", ".git" },
  -- Register *.fs, *.fsi, *.fsx, *.fsscript as filetype `fsharp` (Neovim 0.7 reads *.fs as Forth).
  filetype = true,
  -- Apply :FslensMakeVisible's edit in the buffer (true) or only show it (false).
  apply_edits = true,
  -- Pages of :FslensFind results to fetch at most (each page has up to max_results sites).
  max_pages = 10,
  max_results = 200,
  timeout_ms = 120000,
  -- The deadline of :FslensRunTests's run (fslens.runTests's timeoutMs).
  run_timeout_ms = 300000,
  on_attach = nil,
  capabilities = nil,
  settings = nil,
  init_options = nil,
  cmd_env = nil,
}

-- Readiness per client id, from fslens.status and the fslens/status notification.
M.states = {}
-- The last answer of each command, and how many answers each command has had (tests wait on these).
M.last = {}
M.completed = {
  find = 0, check = 0, fieldImpact = 0, makeVisible = 0, rename = 0, callers = 0, callees = 0, implementations = 0, typeHierarchy = 0, status = 0,
}

-- The quickfix commands' counters (M.quickfix_commands, below) start at 0 too.
setmetatable(M.completed, { __index = function() return 0 end })

local has_start = vim.lsp.start ~= nil
local uv = vim.loop

local function notify(message, level)
  M.last_message = message
  vim.schedule(function()
    vim.notify(message, level or vim.log.levels.INFO)
  end)
end

local function shell_quote(word)
  if word:match("^[%w%._/:=@%%+,-]+$") then
    return word
  end
  return "'" .. word:gsub("'", "'\\''") .. "'"
end

--- The command line that starts fslens for a configuration (exported for tests).
function M.server_command(config)
  config = config or M.config
  local cmd = type(config.cmd) == "table" and vim.deepcopy(config.cmd) or { config.cmd }
  local fsac = config.fsac
  local extra = config.fsac_args or {}
  if #extra > 0 then
    local words = { fsac or "fsautocomplete" }
    for _, arg in ipairs(extra) do
      table.insert(words, shell_quote(arg))
    end
    fsac = table.concat(words, " ")
  end
  if fsac and fsac ~= "" then
    table.insert(cmd, "--fsac")
    table.insert(cmd, fsac)
  end
  if config.fsac_memory_limit and config.fsac_memory_limit ~= "" then
    table.insert(cmd, "--fsac-memory-limit")
    table.insert(cmd, config.fsac_memory_limit)
  end
  for _, arg in ipairs(config.args or {}) do
    table.insert(cmd, arg)
  end
  return cmd
end

--- The text for a readiness state: loading, ready, syntax only, crashed (exported for tests).
function M.status_text(status)
  if not status or not status.state then
    return "fslens"
  end
  local text = ({
    absent = "syntax only",
    starting = "starting",
    loading = "loading",
    ready = "ready",
    crashed = "crashed",
  })[status.state] or status.state
  if status.unresponsive then
    text = text .. " (unresponsive)"
  end
  return text
end

--- For 'statusline': `set statusline+=%{v:lua.require'fslens'.statusline()}`.
function M.statusline()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    return ""
  end
  return "fslens: " .. M.status_text(M.states[client.id])
end

-- Root: the nearest directory with a solution, else with a project, else with .git.
local function has_marker(dir, marker)
  if marker:find("[%*%?]") then
    return vim.fn.glob(dir .. "/" .. marker, true, true)[1] ~= nil
  end
  return uv.fs_stat(dir .. "/" .. marker) ~= nil
end

function M.find_root(path, markers)
  markers = markers or M.config.root_markers
  local start = vim.fn.fnamemodify(path, ":p:h")
  -- Markers are tried in order of preference, each walking up from the file: a solution
  -- above a project wins over the project.
  local groups = {}
  for _, marker in ipairs(markers) do
    local ext = marker:match("^%*%.(%w+)$")
    local group = (ext == "sln" or ext == "slnx") and 1 or (ext == "fsproj" and 2 or 3)
    groups[group] = groups[group] or {}
    table.insert(groups[group], marker)
  end
  for group = 1, 3 do
    if groups[group] then
      local dir = start
      while dir and dir ~= "" do
        for _, marker in ipairs(groups[group]) do
          if has_marker(dir, marker) then
            return dir
          end
        end
        local parent = vim.fn.fnamemodify(dir, ":h")
        if parent == dir then
          break
        end
        dir = parent
      end
    end
  end
  return start
end

local function get_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = "fslens" })
  end
  local found = {}
  for _, client in pairs(vim.lsp.get_active_clients()) do
    if client.name == "fslens" then
      table.insert(found, client)
    end
  end
  return found
end

--- The fslens client attached to a buffer (or any fslens client).
function M.client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local any
  for _, client in ipairs(get_clients()) do
    if vim.lsp.buf_is_attached(bufnr, client.id) then
      return client
    end
    any = any or client
  end
  return any
end

local function request(client, method, params, handler, bufnr)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- Runs an fslens command: `callback(err, result)` on the main loop.
function M.execute(command, argument, callback, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    notify("fslens: no fslens client for this buffer", vim.log.levels.ERROR)
    return false
  end
  request(client, "workspace/executeCommand", { command = command, arguments = { argument } }, function(err, result)
    callback(err, result, client)
  end, bufnr)
  return true
end

-- ---------------------------------------------------------------------------------------
-- Positions and paths

local function client_root(client)
  return (client and client.config and client.config.root_dir) or vim.fn.getcwd()
end

local function absolute(root, file)
  if not file or file == "" then
    return nil
  end
  if file:sub(1, 1) == "/" or file:match("^%a:[/\\]") then
    return file
  end
  if file:match("^file:") then
    return vim.uri_to_fname(file)
  end
  return root .. "/" .. file
end

-- The text of a line (0-based) of a file: from its buffer when loaded, else from disk.
local function line_of(path, line)
  local bufnr = vim.fn.bufnr(path)
  if bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) then
    return vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1]
  end
  local ok, lines = pcall(vim.fn.readfile, path, "", line + 1)
  if ok then
    return lines[line + 1]
  end
  return nil
end

-- UTF-16 code units of the UTF-8 character starting with byte `b`.
local function utf16_units(b)
  return b >= 0xF0 and 2 or 1
end

local function utf8_length(b)
  if b >= 0xF0 then
    return 4
  elseif b >= 0xE0 then
    return 3
  elseif b >= 0xC0 then
    return 2
  end
  return 1
end

--- The 1-based byte column of an LSP (UTF-16) character on a line (exported for tests).
--- Pure Lua: vim.str_byteindex changed its signature in Neovim 0.11.
function M.byte_col(text, character)
  character = character or 0
  if not text then
    return character + 1
  end
  local byte, units = 1, 0
  while units < character and byte <= #text do
    local b = text:byte(byte)
    units = units + utf16_units(b)
    byte = byte + utf8_length(b)
  end
  return byte
end
local byte_col = M.byte_col

--- The UTF-16 column of a 0-based byte column (exported for tests).
function M.utf16_col(text, col)
  local byte, units = 1, 0
  while byte <= math.min(col, #text) do
    local b = text:byte(byte)
    units = units + utf16_units(b)
    byte = byte + utf8_length(b)
  end
  return units
end

-- The cursor as an LSP position (0-based line, UTF-16 character).
local function cursor_position(bufnr)
  local cursor = vim.api.nvim_win_get_cursor(0)
  local line = cursor[1] - 1
  local text = vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1] or ""
  return line, M.utf16_col(text, cursor[2])
end

local function severity_type(severity)
  return ({ error = "E", warning = "W", information = "I", info = "I", hint = "N" })[severity] or "E"
end

local function set_quickfix(title, items, open)
  vim.fn.setqflist({}, " ", { title = title, items = items })
  if open and #items > 0 and #vim.api.nvim_list_uis() > 0 then
    vim.cmd("botright copen")
  end
end

local function error_text(err)
  if type(err) == "table" then
    local kind = err.data and err.data.errorKind
    return (err.message or vim.inspect(err)) .. (kind and (" [" .. kind .. "]") or "")
  end
  return tostring(err)
end

-- ---------------------------------------------------------------------------------------
-- Find and field impact

--- The quickfix items of find/fieldImpact sites (exported for tests).
function M.site_items(root, sites)
  local items = {}
  for _, site in ipairs(sites or {}) do
    local path = absolute(root, site.file)
    local start = site.range and site.range.start or { line = 0, character = 0 }
    -- lineText may be a window of a long line: columns are counted on the real line then.
    local whole = site.lineText
      and (site.lineTextSourceStartColumn or 0) == 0
      and site.lineTextTruncated ~= true
      and site.lineText
    local text = site.lineText or line_of(path, start.line)
    local label = site.kind or "site"
    if site.siteType and site.siteType ~= vim.NIL then
      label = label .. " : " .. site.siteType
    end
    if site.project and site.project ~= vim.NIL then
      label = label .. " [" .. vim.fn.fnamemodify(site.project, ":t"):gsub("%.fsproj$", "") .. "]"
    end
    table.insert(items, {
      filename = path,
      lnum = start.line + 1,
      col = byte_col(whole or line_of(path, start.line), start.character),
      text = label .. ": " .. vim.trim(text or ""),
      type = "I",
    })
  end
  return items
end

-- The arguments for a find at the cursor or for a query.
function M.find_arguments(query, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local arguments = { maxResults = M.config.max_results, timeoutMs = M.config.timeout_ms }
  if query and query ~= "" then
    arguments.query = query
  else
    local line, character = cursor_position(bufnr)
    arguments.kind = "position"
    arguments.path = vim.api.nvim_buf_get_name(bufnr)
    arguments.line = line
    arguments.character = character
  end
  return arguments
end

local function sweep(name, command, arguments, title, done)
  local bufnr = vim.api.nvim_get_current_buf()
  local sites = {}
  local pages = 0
  local function page(cursor)
    local args = vim.deepcopy(arguments)
    args.cursor = cursor
    local ok = M.execute(command, args, function(err, result, client)
      if err then
        M.last[name] = { error = err }
        notify("fslens: " .. title .. " failed: " .. error_text(err), vim.log.levels.ERROR)
        M.completed[name] = M.completed[name] + 1
        return done and done(err)
      end
      result = result or {}
      pages = pages + 1
      vim.list_extend(sites, result.sites or {})
      if result.nextCursor and result.nextCursor ~= vim.NIL and pages < M.config.max_pages then
        return page(result.nextCursor)
      end
      local items = M.site_items(client_root(client), sites)
      set_quickfix(title, items, true)
      result.sites = sites
      result.pages = pages
      M.last[name] = result
      local outcome = result.outcome or (#sites > 0 and "found" or "not_found")
      local message = string.format("fslens: %s: %d site(s), %s", title, #sites, outcome)
      if result.via then
        message = message .. " via " .. result.via
      end
      if result.nextCursor and result.nextCursor ~= vim.NIL then
        message = message .. " (more pages not fetched)"
      end
      if result.scopeNote and result.scopeNote ~= vim.NIL then
        message = message .. " — " .. tostring(result.scopeNote)
      end
      notify(message)
      M.completed[name] = M.completed[name] + 1
      return done and done(nil, result)
    end, bufnr)
    if not ok then
      M.completed[name] = M.completed[name] + 1
    end
  end
  page(nil)
end

function M.find(query, done)
  local arguments = M.find_arguments(query)
  sweep("find", "fslens.find", arguments, "fslens find " .. (query ~= "" and query or "at cursor"), done)
end

function M.field_impact(field, done)
  local arguments = M.find_arguments(field)
  arguments.kind = (field and field ~= "") and "field" or "position"
  sweep("fieldImpact", "fslens.fieldImpact", arguments, "fslens field impact " .. (field or ""), done)
end

-- ---------------------------------------------------------------------------------------
-- Check

--- The quickfix items of a check answer (exported for tests).
function M.check_items(root, diagnostics)
  local items = {}
  for _, d in ipairs(diagnostics or {}) do
    local start = d.range and d.range.start or { line = 0, character = 0 }
    local path = d.file ~= "snippet" and absolute(root, d.file) or nil
    local code = d.code and d.code ~= vim.NIL and string.format("FS%04d ", tonumber(d.code) or 0) or ""
    table.insert(items, {
      filename = path,
      lnum = start.line + 1,
      col = path and byte_col(line_of(path, start.line), start.character) or start.character + 1,
      text = code .. vim.trim((d.message or ""):gsub("%s+", " ")),
      type = severity_type(d.severity),
    })
  end
  return items
end

--- The one-line verdict of a check answer (exported for tests).
function M.verdict_text(result)
  local text = string.format(
    "fslens check (%s): %s — %d error(s), %d warning(s)",
    result.scope or "?",
    result.verdict or "?",
    result.errorCount or 0,
    result.warningCount or 0
  )
  local blocking = result.blockingReason
  if blocking and blocking ~= vim.NIL then
    text = text .. " — " .. (blocking.message or blocking.errorKind or "")
  end
  return text
end

-- :FslensCheck [file|project|workspace|all] — default: the current file.
function M.check(scope, done)
  local bufnr = vim.api.nvim_get_current_buf()
  local arguments = { timeoutMs = M.config.timeout_ms }
  scope = scope ~= "" and scope or nil
  if scope == nil or scope == "file" then
    arguments.scope = "file"
    arguments.path = vim.api.nvim_buf_get_name(bufnr)
  elseif scope == "project" then
    arguments.scope = "project"
    arguments.path = vim.api.nvim_buf_get_name(bufnr)
    local dir = vim.fn.fnamemodify(arguments.path, ":h")
    while dir ~= "/" and dir ~= "" do
      local project = vim.fn.glob(dir .. "/*.fsproj", true, true)[1]
      if project then
        arguments.projectPath = project
        arguments.path = nil
        break
      end
      dir = vim.fn.fnamemodify(dir, ":h")
    end
  else
    arguments.scope = "workspace"
  end
  local ok = M.execute("fslens.check", arguments, function(err, result, client)
    if err then
      M.last.check = { error = err }
      notify("fslens check failed: " .. error_text(err), vim.log.levels.ERROR)
    else
      M.last.check = result
      set_quickfix("fslens check: " .. (result.verdict or "?"), M.check_items(client_root(client), result.diagnostics), true)
      local level = result.verdict == "clean" and vim.log.levels.INFO
        or (result.verdict == "errors" and vim.log.levels.ERROR or vim.log.levels.WARN)
      notify(M.verdict_text(result), level)
    end
    M.completed.check = M.completed.check + 1
    return done and done(err, result)
  end, bufnr)
  if not ok then
    M.completed.check = M.completed.check + 1
  end
end

-- ---------------------------------------------------------------------------------------
-- Make internal visible

-- :FslensMakeVisible [Project] — at the cursor (on the declared name); with a project name,
-- also adds InternalsVisibleTo for it to the declaring project.
function M.make_visible(expose_to, done)
  local bufnr = vim.api.nvim_get_current_buf()
  local line, character = cursor_position(bufnr)
  local arguments = { path = vim.api.nvim_buf_get_name(bufnr), line = line, character = character }
  if expose_to and expose_to ~= "" then
    arguments.exposeTo = expose_to
  end
  local ok = M.execute("fslens.makeInternalVisible", arguments, function(err, result, client)
    if err then
      M.last.makeVisible = { error = err }
      notify("fslens make visible failed: " .. error_text(err), vim.log.levels.ERROR)
    elseif result.status ~= "ok" then
      M.last.makeVisible = result
      notify("fslens: nothing to make visible: " .. tostring(result.reason), vim.log.levels.WARN)
    else
      M.last.makeVisible = result
      if M.config.apply_edits and result.edits then
        vim.lsp.util.apply_workspace_edit(result.edits, client.offset_encoding or "utf-16")
      end
      local name = result.declaration and result.declaration.name or "declaration"
      notify(string.format("fslens: %s is internal now: %s", name, vim.trim(result.appliedPreview or "")))
    end
    M.completed.makeVisible = M.completed.makeVisible + 1
    return done and done(err, result)
  end, bufnr)
  if not ok then
    M.completed.makeVisible = M.completed.makeVisible + 1
  end
end

-- ---------------------------------------------------------------------------------------
-- Rename

-- :FslensRename NEWNAME — renames the symbol at the cursor everywhere: fslens.rename with
-- apply "editor", so fslens sends the edit as one workspace/applyEdit, which Neovim applies to
-- the buffers (nothing is saved). Sites find has and the rename misses go to the quickfix list.
function M.rename(new_name, done)
  local bufnr = vim.api.nvim_get_current_buf()
  if not new_name or new_name == "" then
    new_name = vim.fn.input("fslens: rename to: ")
  end
  local line, character = cursor_position(bufnr)
  local arguments =
    { path = vim.api.nvim_buf_get_name(bufnr), line = line, character = character, newName = new_name, apply = "editor" }
  local ok = M.execute("fslens.rename", arguments, function(err, result, client)
    if err then
      M.last.rename = { error = err }
      notify("fslens rename failed: " .. error_text(err), vim.log.levels.ERROR)
    else
      M.last.rename = result
      local root = client.config.root_dir
      local missed = M.site_items(root, result.missedSites)
      set_quickfix("fslens rename: missed sites", missed, true)
      local applied = result.applied and result.applied.applied
      local text = string.format("fslens: %s -> %s, %d edits in %d files%s", tostring(result.oldName),
        tostring(result.newName), result.totalEdits or 0, result.totalFiles or 0,
        applied and "" or (" (not applied: " .. tostring(result.applied and result.applied.failureReason) .. ")"))
      if #missed > 0 or result.complete ~= true then
        text = text .. string.format("; INCOMPLETE: %d missed site(s) in the quickfix list", #missed)
      end
      notify(text, (#missed > 0 or not applied) and vim.log.levels.WARN or nil)
    end
    M.completed.rename = M.completed.rename + 1
    return done and done(err, result)
  end, bufnr)
  if not ok then
    M.completed.rename = M.completed.rename + 1
  end
end

-- ---------------------------------------------------------------------------------------
-- Callers, callees and implementations (FSAC's call hierarchy and implementation, through fslens)

-- One quickfix item per call site of `calls`: `file_of(call)` is the file its ranges are in,
-- `label(call)` what the entry says before the line's text.
local function call_site_items(calls, file_of, label)
  local items = {}
  for _, call in ipairs(calls or {}) do
    local path = file_of(call)
    for _, range in ipairs(call.fromRanges or {}) do
      local text = line_of(path, range.start.line) or ""
      table.insert(items, {
        filename = path,
        lnum = range.start.line + 1,
        col = byte_col(text, range.start.character),
        text = label(call) .. ": " .. vim.trim(text),
        type = "I",
      })
    end
  end
  return items
end

--- The quickfix items of callHierarchy/incomingCalls: one per call site, in the caller's
--- file (exported for tests).
function M.caller_items(calls)
  return call_site_items(calls, function(call)
    return vim.uri_to_fname(call.from.uri)
  end, function(call)
    return "called from " .. tostring(call.from.name)
  end)
end

--- The quickfix items of callHierarchy/outgoingCalls of `item`: one per call site, which is
--- in the item's own file (exported for tests).
function M.callee_items(item, calls)
  local path = vim.uri_to_fname(item.uri)
  return call_site_items(calls, function()
    return path
  end, function(call)
    return "calls " .. tostring(call.to.name)
  end)
end

--- The quickfix items of a textDocument/implementation answer (a Location, Locations or
--- LocationLinks; exported for tests).
function M.location_items(result, label)
  local locations = result or {}
  if locations.uri or locations.targetUri then
    locations = { locations }
  end
  local items = {}
  for _, location in ipairs(locations) do
    local uri = location.uri or location.targetUri
    local range = location.range or location.targetSelectionRange
    local path = vim.uri_to_fname(uri)
    local text = line_of(path, range.start.line) or ""
    table.insert(items, {
      filename = path,
      lnum = range.start.line + 1,
      col = byte_col(text, range.start.character),
      text = label .. ": " .. vim.trim(text),
      type = "I",
    })
  end
  return items
end

-- Runs `name` (a key of M.completed/M.last) at the cursor: `ask(client, position, finish)`
-- sends the requests and calls finish(err, items, title) once.
local function at_cursor(name, ask, done)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  local finish = function(err, items, title)
    items = items or {}
    if not err and title then
      set_quickfix(title, items, true)
      notify(string.format("fslens: %d %s", #items, title))
    end
    M.last[name] = { error = err, quickfix = items }
    M.completed[name] = (M.completed[name] or 0) + 1
    return done and done(err, items)
  end
  if not client then
    notify("fslens: no fslens client for this buffer", vim.log.levels.ERROR)
    return finish("no client")
  end
  local line, character = cursor_position(bufnr)
  local position = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = line, character = character } }
  ask(client, position, finish, bufnr)
end

-- prepareCallHierarchy at the cursor, then the calls of its item in `direction`.
local function call_hierarchy(name, direction, done)
  at_cursor(name, function(client, position, finish, bufnr)
    request(client, "textDocument/prepareCallHierarchy", position, function(err, prepared)
      if err or not prepared or #prepared == 0 then
        notify("fslens: no function, member or value at the cursor" .. (err and (": " .. error_text(err)) or ""), vim.log.levels.WARN)
        return finish(err or "nothing at the cursor", {})
      end
      local item = prepared[1]
      local method = direction == "incoming" and "callHierarchy/incomingCalls" or "callHierarchy/outgoingCalls"
      request(client, method, { item = item }, function(err2, calls)
        if err2 then
          notify("fslens " .. name .. " failed: " .. error_text(err2), vim.log.levels.ERROR)
          return finish(err2, {})
        end
        if direction == "incoming" then
          return finish(nil, M.caller_items(calls), "call site(s) of " .. tostring(item.name))
        end
        return finish(nil, M.callee_items(item, calls), "call(s) made by " .. tostring(item.name))
      end, bufnr)
    end, bufnr)
  end, done)
end

-- :FslensCallers — every call site of the function, member or value at the cursor, across
-- projects (FSAC's prepareCallHierarchy and incomingCalls) → quickfix list.
function M.callers(done)
  call_hierarchy("callers", "incoming", done)
end

-- :FslensCallees — every call the function or member at the cursor makes (outgoingCalls).
function M.callees(done)
  call_hierarchy("callees", "outgoing", done)
end

-- :FslensImplementations — where the interface, abstract member or interface member at the
-- cursor is implemented, across projects (textDocument/implementation) → quickfix list.
function M.implementations(done)
  at_cursor("implementations", function(client, position, finish, bufnr)
    request(client, "textDocument/implementation", position, function(err, result)
      if err then
        notify("fslens implementations failed: " .. error_text(err), vim.log.levels.ERROR)
        return finish(err, {})
      end
      return finish(nil, M.location_items(result, "implementation"), "implementation(s)")
    end, bufnr)
  end, done)
end

--- The quickfix items of an fslens.typeHierarchy answer: its supertypes, then its subtypes
--- (exported for tests).
function M.hierarchy_items(answer)
  local items = {}
  local function add(rows, label)
    for _, row in ipairs(rows or {}) do
      local path = vim.uri_to_fname(row.uri)
      local text = line_of(path, row.range.start.line) or ""
      table.insert(items, {
        filename = path,
        lnum = row.range.start.line + 1,
        col = byte_col(text, row.range.start.character),
        text = label .. ": " .. vim.trim(text),
        type = "I",
      })
    end
  end
  add(answer and answer.supertypes, "supertype")
  add(answer and answer.subtypes, "subtype")
  return items
end

-- :FslensTypeHierarchy — the supertypes and subtypes of the type at the cursor, across
-- projects (fslens.typeHierarchy: FSAC has none) → quickfix list.
function M.type_hierarchy(done)
  local bufnr = vim.api.nvim_get_current_buf()
  local line, character = cursor_position(bufnr)
  local argument = { path = vim.api.nvim_buf_get_name(bufnr), line = line, character = character, timeoutMs = M.config.timeout_ms }
  local finish = function(err, items)
    M.last.typeHierarchy = { error = err, quickfix = items or {} }
    M.completed.typeHierarchy = (M.completed.typeHierarchy or 0) + 1
    return done and done(err, items)
  end
  local sent = M.execute("fslens.typeHierarchy", argument, function(err, answer)
    if err then
      notify("fslens type hierarchy: " .. error_text(err), vim.log.levels.WARN)
      return finish(err, {})
    end
    local items = M.hierarchy_items(answer)
    local name = answer and answer.type and answer.type.name or "?"
    set_quickfix("fslens type hierarchy of " .. name, items, true)
    notify(string.format("fslens: %s has %d supertype(s) and %d subtype(s) (from text, confirmed by FSAC; may be incomplete)",
      name, #(answer.supertypes or {}), #(answer.subtypes or {})))
    return finish(nil, items)
  end, bufnr)
  if not sent then
    return finish("no client")
  end
end

function M.status(done)
  M.execute("fslens.status", { probe = true }, function(err, result, client)
    if err then
      notify("fslens status failed: " .. error_text(err), vim.log.levels.ERROR)
    else
      M.states[client.id] = result
      local text = "fslens: " .. M.status_text(result) .. " — " .. tostring(result.reason or "")
      if result.workspaceRoot then
        text = text .. " (" .. result.workspaceRoot .. ")"
      end
      notify(text)
    end
    M.completed.status = M.completed.status + 1
    return done and done(err, result)
  end)
end

function M.restart()
  M.execute("fslens.restart", {}, function(err, result)
    if err then
      notify("fslens restart failed: " .. error_text(err), vim.log.levels.ERROR)
    else
      notify("fslens: restarting FsAutoComplete (generation " .. tostring(result.generation) .. ")")
    end
  end)
end

-- ---------------------------------------------------------------------------------------
-- Location-list commands: one table entry each
--
-- Every entry of M.quickfix_commands is one :Fslens* command that sends one fslens command
-- and fills the quickfix list from its answer. An entry has
--   user_command  the :Fslens… name;  nargs, complete  as nvim_create_user_command takes them
--   bang          optional: true when the command takes a `!`
--   arguments(args, bufnr, callback, bang)  calls callback(nil, command, argument) with the
--                 fslens command to send and its argument object, or callback(message) to refuse
--   items(root, answer, argument)  the quickfix items of the answer (file, lnum, col, text, type)
--   title(answer, argument)        the quickfix list's title
--   message(answer, items, argument)  the one-line summary, saying how complete the answer is
--   remember(answer, list_id, argument, root)  optional: called with the new quickfix list's id
-- M.run_quickfix(name, args, done) runs an entry; M.last[name] is its last answer (or
-- {error = …}) and M.completed[name] counts its answers. A new command that answers a list of
-- places is one more entry (editors/README.md).

M.quickfix_commands = {}

-- Runs the quickfix command `name` (a key of M.quickfix_commands) with the user's `args` (and
-- `bang`, for an entry declared with `bang = true`).
function M.run_quickfix(name, args, done, bang)
  local entry = M.quickfix_commands[name]
  local bufnr = vim.api.nvim_get_current_buf()
  local function finish(err, answer)
    if err then
      M.last[name] = { error = err }
      notify("fslens: " .. entry.user_command .. ": " .. error_text(err), vim.log.levels.ERROR)
    end
    M.completed[name] = (M.completed[name] or 0) + 1
    return done and done(err, answer)
  end
  entry.arguments(args, bufnr, function(refused, command, argument)
    if refused then
      return finish(refused)
    end
    local sent = M.execute(command, argument, function(err, answer, client)
      if err then
        return finish(err)
      end
      local items = entry.items(client_root(client), answer, argument)
      set_quickfix(entry.title(answer, argument), items, true)
      if entry.remember then
        entry.remember(answer, vim.fn.getqflist({ id = 0 }).id, argument, client_root(client))
      end
      M.last[name] = answer
      local message, level = entry.message(answer, items, argument)
      notify(message, level)
      return finish(nil, answer)
    end, bufnr)
    if not sent then
      return finish("no fslens client for this buffer")
    end
  end, bang)
end

-- The arguments of a command about the symbol at the cursor, or named by `query`.
local function symbol_arguments(query, bufnr)
  if query and query ~= "" then
    return { query = query, timeoutMs = M.config.timeout_ms }
  end
  local line, character = cursor_position(bufnr)
  return { path = vim.api.nvim_buf_get_name(bufnr), line = line, character = character, timeoutMs = M.config.timeout_ms }
end

-- The 1-based byte column of `name` on a line (1 when the line does not hold it).
local function column_of(text, name)
  local at = text and name and text:find(name, 1, true)
  return at or 1
end

--- The quickfix items of an fslens.testsForSymbol answer: each test at its name, with its
--- framework and, for a test reached through a helper, the helper (exported for tests).
function M.test_items(root, answer)
  local items = {}
  for _, project in ipairs(answer.testProjects or {}) do
    for _, test in ipairs(project.tests or {}) do
      local path = absolute(root, test.path)
      local text = line_of(path, test.line)
      local label = test.name .. " [" .. test.framework .. "]"
      if type(test.reach) == "table" then
        label = label .. " via " .. tostring(test.reach.via)
      end
      table.insert(items, {
        filename = path,
        lnum = test.line + 1,
        col = column_of(text, test.name),
        text = label,
        type = "I",
      })
    end
  end
  return items
end

--- What fslens.runTests takes to run `tests` (rows of a testsForSymbol answer): the full
--- names VSTest can select (the answer's runTestsArguments.tests) and the projects holding
--- them; `skipped` counts the tests it cannot select (e.g. Expecto without a VSTest adapter).
--- The tests run may be fewer than the answer's, so the projects are those of the runnable
--- tests among them (exported for tests).
function M.run_arguments(answer, tests)
  local selectable = {}
  for _, name in ipairs(answer.runTestsArguments and answer.runTestsArguments.tests or {}) do
    selectable[name] = true
  end
  local names, projects, seen, skipped = {}, {}, {}, 0
  for _, test in ipairs(tests) do
    local name = test.fullyQualifiedName
    if name and selectable[name] then
      if not seen[name] then
        seen[name] = true
        table.insert(names, name)
      end
      if not seen[test.project] then
        seen[test.project] = true
        table.insert(projects, test.project)
      end
    else
      skipped = skipped + 1
    end
  end
  return { tests = names, projects = projects }, skipped
end

local function all_tests(answer)
  local tests = {}
  for _, project in ipairs(answer.testProjects or {}) do
    vim.list_extend(tests, project.tests or {})
  end
  return tests
end

-- The tests each quickfix list holds, by list id: what :FslensRunTests runs when that list is
-- the current one ({tests, projects, skipped}).
M.quickfix_tests = {}

-- Where each test seen in a testsForSymbol answer is, by full name ({filename, lnum}): a run's
-- entry for a test with no failing frame in the workspace, or with no result, points there.
M.test_places = {}

local function remember_places(root, answer)
  for _, test in ipairs(all_tests(answer)) do
    if test.fullyQualifiedName then
      M.test_places[test.fullyQualifiedName] = { filename = absolute(root, test.path), lnum = test.line + 1 }
    end
  end
end

M.quickfix_commands.testsForSymbol = {
  user_command = "FslensTestsForSymbol",
  nargs = "?",
  arguments = function(args, bufnr, callback)
    callback(nil, "fslens.testsForSymbol", symbol_arguments(args, bufnr))
  end,
  items = M.test_items,
  title = function(answer)
    return "fslens tests of " .. tostring(answer.symbol or answer.query or "the symbol")
  end,
  message = function(answer, items)
    local run, skipped = M.run_arguments(answer, all_tests(answer))
    local text = string.format("fslens: %d test(s) reach %s (via %s; %s)", #items,
      tostring(answer.symbol or answer.query or "the symbol"), tostring(answer.via),
      answer.complete and "complete" or "NOT complete")
    if not answer.complete then
      local missing = answer.completeness and answer.completeness.missing or {}
      if #missing > 0 then
        text = text .. ": " .. table.concat(missing, "; ")
      end
    end
    if skipped > 0 then
      text = text .. string.format("; %d of them cannot be run by name (no VSTest adapter)", skipped)
    end
    if #run.tests > 0 then
      text = text .. "; :FslensRunTests runs " .. #run.tests
    end
    return text, answer.complete and vim.log.levels.INFO or vim.log.levels.WARN
  end,
  remember = function(answer, list_id, _, root)
    local run, skipped = M.run_arguments(answer, all_tests(answer))
    run.skipped = skipped
    M.quickfix_tests[list_id] = run
    remember_places(root, answer)
  end,
}

--- The quickfix items of an fslens.runTests answer: each failed test at its failing frame
--- (the first in the workspace) with the first line of its message; tests that were asked
--- for and not found, and stale assemblies, as warnings. A test without a frame in the workspace,
--- or without a result, is at its declaration when a testsForSymbol answer showed it
--- (M.test_places; exported for tests).
function M.failure_items(root, answer)
  local items = {}
  for _, test in ipairs(answer.tests or {}) do
    if test.outcome == "failed" then
      local message = vim.trim(((test.message or "failed"):gsub("%s+", " ")))
      local location = test.location
      local item = { text = test.displayName .. ": " .. message, type = "E" }
      if location and location ~= vim.NIL then
        item.filename = absolute(root, location.path)
        item.lnum = location.line
        item.col = 1
      else
        item.text = item.text .. " (no stack frame in the workspace)"
        local place = M.test_places[test.fullName]
        item.filename, item.lnum, item.col = place and place.filename, place and place.lnum, place and 1
      end
      table.insert(items, item)
    elseif test.outcome == "notFound" then
      -- VSTest reported nothing for the name: no such test, or an adapter that could not select it
      -- (NUnit's adapter refuses a FullyQualifiedName filter on a name with spaces).
      local place = M.test_places[test.fullName]
      table.insert(items, {
        filename = place and place.filename,
        lnum = place and place.lnum,
        col = place and 1,
        text = test.fullName .. ": no result (no such test, or its adapter could not select it by name)",
        type = "W",
      })
    end
  end
  for _, stale in ipairs(answer.staleAssemblies or {}) do
    table.insert(items, {
      filename = absolute(root, stale.project),
      lnum = 1,
      col = 1,
      text = "stale build: " .. tostring(stale.reason) .. " — " .. tostring(stale.remedy),
      type = "W",
    })
  end
  return items
end

--- The one-line summary of an fslens.runTests answer (exported for tests).
function M.run_summary(answer)
  local totals = answer.totals or {}
  local text = string.format("fslens run tests: %s — %d passed, %d failed, %d skipped, %d other",
    tostring(answer.status), totals.passed or 0, totals.failed or 0, totals.skipped or 0, totals.other or 0)
  local blocking = answer.blockingReason
  if blocking and blocking ~= vim.NIL then
    text = text .. " — " .. tostring(blocking.message or blocking.errorKind)
  end
  if #(answer.staleAssemblies or {}) > 0 then
    text = text .. string.format(" — %d stale build(s): results of the old build", #answer.staleAssemblies)
  end
  if not answer.complete then
    text = text .. " (NOT complete)"
  end
  return text
end

M.quickfix_commands.runTests = {
  user_command = "FslensRunTests",
  nargs = "?",
  -- The current quickfix list's tests (from :FslensTestsForSymbol, or the last run); with a
  -- name, or when the list holds no tests, those of the symbol (testsForSymbol first).
  arguments = function(args, bufnr, callback)
    local function run(selection)
      if #selection.tests == 0 then
        return callback(string.format("no test to run: %d test(s) cannot be selected by name", selection.skipped or 0))
      end
      local argument = { tests = selection.tests, projects = selection.projects, timeoutMs = M.config.run_timeout_ms }
      callback(nil, "fslens.runTests", argument)
    end
    local current = M.quickfix_tests[vim.fn.getqflist({ id = 0 }).id]
    if (not args or args == "") and current then
      return run(current)
    end
    local sent = M.execute("fslens.testsForSymbol", symbol_arguments(args, bufnr), function(err, answer, client)
      if err then
        return callback(err)
      end
      remember_places(client_root(client), answer)
      local selection, skipped = M.run_arguments(answer, all_tests(answer))
      selection.skipped = skipped
      run(selection)
    end, bufnr)
    if not sent then
      callback("no fslens client for this buffer")
    end
  end,
  items = M.failure_items,
  title = function(answer)
    return string.format("fslens test failures (%d of %d)", (answer.totals or {}).failed or 0, #(answer.tests or {}))
  end,
  message = function(answer)
    local level = (answer.status == "ok" and answer.complete and ((answer.totals or {}).failed or 0) == 0)
        and vim.log.levels.INFO
      or vim.log.levels.WARN
    return M.run_summary(answer), level
  end,
  -- Running again from the failures' list runs the same tests.
  remember = function(_, list_id, argument)
    M.quickfix_tests[list_id] = { tests = argument.tests, projects = argument.projects, skipped = 0 }
  end,
}

-- The value of an optional answer field (JSON null arrives as vim.NIL).
local function present(value)
  if value == nil or value == vim.NIL then
    return nil
  end
  return value
end

-- ---------------------------------------------------------------------------------------
-- :FslensAffectedTests[!] [rev]: the tests a change reaches (fslens.affectedTests)

--- One reason of an affectedTests test as text: what changed, then each step of the chain
--- from the changed declaration (or project file) to the test, `name (path:line)` with a
--- 1-based line (exported for tests).
function M.reason_text(reason)
  local changes = { signature = "signature changed", body = "body changed", projectFile = "project file changed" }
  local steps = {}
  for _, step in ipairs(reason.chain or {}) do
    table.insert(steps, string.format("%s (%s:%d)", tostring(step.name), tostring(step.path), (step.line or 0) + 1))
  end
  local change = changes[reason.change] or tostring(reason.change)
  if reason.noLongerCompiles then
    change = change .. ", no longer compiles"
  end
  return change .. ": " .. table.concat(steps, " → ")
end

local function reasons_text(test)
  local texts = {}
  for _, reason in ipairs(test.reasons or {}) do
    table.insert(texts, M.reason_text(reason))
  end
  return table.concat(texts, "; ")
end

local function change_source(answer)
  local source = answer.source or {}
  if source.kind == "since" then
    return "since " .. tostring(source.revision)
  end
  return source.kind == "buffers" and "unsaved buffers" or "the change"
end

--- The quickfix items of an fslens.affectedTests answer (exported for tests). Without a run:
--- each selected test at its name with its framework and reasons; when the answer is not
--- complete, what was not followed (no file) and each fallback test (a warning at its name:
--- the walk could not rule it out). With a run: each selected test's result — a failure at its
--- failing frame (an error, with VSTest's message and the reason), a pass at the test, a test
--- without a result (not run: no VSTest adapter, or not found) a warning at the test — and
--- stale builds.
function M.affected_items(root, answer)
  local items = {}
  local ran = present(answer.run) ~= nil
  for _, test in ipairs(answer.tests or {}) do
    local path = absolute(root, test.path)
    local at = { filename = path, lnum = test.line + 1, col = column_of(line_of(path, test.line), test.name) }
    local reasons = reasons_text(test)
    if not ran then
      table.insert(items, vim.tbl_extend("force", at, {
        text = test.name .. " [" .. tostring(test.framework) .. "] ← " .. reasons,
        type = "I",
      }))
    elseif #(test.results or {}) == 0 then
      table.insert(items, vim.tbl_extend("force", at, { text = test.name .. ": not run ← " .. reasons, type = "W" }))
    else
      for _, result in ipairs(test.results) do
        local text = tostring(result.displayName) .. ": " .. tostring(result.outcome)
        if result.outcome == "failed" then
          text = tostring(result.displayName) .. ": " .. vim.trim(((result.message or "failed"):gsub("%s+", " ")))
        end
        local item = vim.tbl_extend("force", at, { text = text .. " ← " .. reasons })
        local location = present(result.location)
        if result.outcome == "failed" and location then
          item.filename, item.lnum, item.col = absolute(root, location.path), location.line, 1
        end
        item.type = result.outcome == "failed" and "E" or result.outcome == "passed" and "I" or "W"
        table.insert(items, item)
      end
    end
  end
  if ran then
    -- Results matching no selected test (the run's own rows), and stale builds.
    for _, item in ipairs(M.failure_items(root, answer.run)) do
      table.insert(items, item)
    end
  else
    for _, missing in ipairs(answer.missing or {}) do
      table.insert(items, { text = "NOT complete: " .. missing, type = "W" })
    end
    for _, test in ipairs(answer.fallbackTests or {}) do
      local path = absolute(root, test.path)
      table.insert(items, {
        filename = path,
        lnum = test.line + 1,
        col = column_of(line_of(path, test.line), test.name),
        text = test.name .. " [fallback: not reached by the walk, not ruled out either]",
        type = "W",
      })
    end
  end
  return items
end

--- The one-line summary of an fslens.affectedTests answer (exported for tests).
function M.affected_summary(answer)
  local run = present(answer.run)
  local text
  if run then
    text = M.run_summary(run)
  else
    text = string.format("fslens: %d test(s) reached by the change (%s; %s)", answer.totalTests or #(answer.tests or {}),
      change_source(answer), answer.complete and "complete" or "NOT complete")
    if not answer.complete then
      if #(answer.missing or {}) > 0 then
        text = text .. ": not followed: " .. table.concat(answer.missing, "; ")
      end
      text = text .. string.format(" — %d fallback test(s) in the list", #(answer.fallbackTests or {}))
    end
  end
  if #(answer.notes or {}) > 0 then
    text = text .. " — " .. table.concat(answer.notes, "; ")
  end
  if not run and #(answer.tests or {}) > 0 then
    text = text .. "; :FslensAffectedTests! runs them"
  end
  return text
end

M.quickfix_commands.affectedTests = {
  user_command = "FslensAffectedTests",
  nargs = "?",
  bang = true,
  -- `rev`: git since that revision; none: the unsaved buffers (else the uncommitted changes).
  -- With `!` the selected tests run (fslens.affectedTests's `run: true`).
  arguments = function(args, _, callback, bang)
    local argument = { timeoutMs = M.config.timeout_ms }
    if args and vim.trim(args) ~= "" then
      argument.since = vim.trim(args)
    end
    if bang then
      argument.run = true
    end
    callback(nil, "fslens.affectedTests", argument)
  end,
  items = M.affected_items,
  title = function(answer)
    local what = present(answer.run) and "results of the tests" or "tests"
    return string.format("fslens %s reached by the change (%s)", what, change_source(answer))
  end,
  message = function(answer)
    local run = present(answer.run)
    local fine = run and run.status == "ok" and run.complete and ((run.totals or {}).failed or 0) == 0
      or (not run and answer.complete)
    return M.affected_summary(answer), fine and vim.log.levels.INFO or vim.log.levels.WARN
  end,
  -- :FslensRunTests on this list runs its tests by full name (in every test project: a name
  -- VSTest cannot select comes back without a result, said in the list).
  remember = function(answer, list_id, _, root)
    local names = {}
    for _, test in ipairs(answer.tests or {}) do
      if test.fullyQualifiedName then
        table.insert(names, test.fullyQualifiedName)
        M.test_places[test.fullyQualifiedName] = { filename = absolute(root, test.path), lnum = test.line + 1 }
      end
    end
    M.quickfix_tests[list_id] = { tests = names, skipped = #(answer.tests or {}) - #names }
  end,
}


--- The quickfix items of an fslens.deadCode answer: each unused declaration at its name, as
--- `name (kind, accessibility): evidence` (exported for tests).
function M.dead_code_items(root, answer)
  local items = {}
  for _, row in ipairs(answer.unused or {}) do
    local path = absolute(root, row.path)
    local text = string.format("%s (%s, %s): %s", row.name, tostring(row.kind), tostring(row.accessibility),
      tostring(row.evidence))
    if present(row.caveat) then
      text = text .. " — " .. row.caveat
    end
    table.insert(items, {
      filename = path,
      lnum = row.line + 1,
      col = M.byte_col(line_of(path, row.line), row.character),
      text = text,
      type = "W",
    })
  end
  return items
end

M.quickfix_commands.deadCode = {
  user_command = "FslensDeadCode",
  nargs = "?",
  -- The whole workspace, or only the declarations of one project (its name or .fsproj).
  arguments = function(args, _, callback)
    local argument = { timeoutMs = M.config.timeout_ms }
    if args and args ~= "" then
      argument.projectPath = args
    end
    callback(nil, "fslens.deadCode", argument)
  end,
  items = M.dead_code_items,
  title = function(answer)
    return string.format("fslens dead code (%d unused)", #(answer.unused or {}))
  end,
  message = function(answer, items)
    local text = string.format("fslens: %d unused declaration(s) (%s)", #items,
      answer.complete and "complete" or "NOT complete")
    local open = #(answer.notRuledOut or {})
    if open > 0 then
      text = text .. string.format("; %d not ruled out", open)
    end
    if not answer.complete and #(answer.incomplete or {}) > 0 then
      text = text .. ": " .. table.concat(answer.incomplete, "; ")
    end
    return text, answer.complete and vim.log.levels.INFO or vim.log.levels.WARN
  end,
}

--- The quickfix items of an fslens.unionCaseImpact answer: each impact at its site, as
--- `CODE kind in function: message`, then each wildcard match as a warning (exported for tests).
function M.union_impact_items(root, answer)
  local items = {}
  for _, impact in ipairs(answer.impacts or {}) do
    local path = absolute(root, impact.file)
    local text = tostring(impact.code) .. " " .. tostring(impact.kind)
    if present(impact["function"]) then
      text = text .. " in " .. impact["function"]
    end
    table.insert(items, {
      filename = path,
      lnum = impact.line + 1,
      col = M.byte_col(line_of(path, impact.line), impact.character),
      text = text .. ": " .. vim.trim((tostring(impact.message):gsub("%s+", " "))),
      type = severity_type(impact.severity),
    })
  end
  for _, match in ipairs(answer.wildcardMatches or {}) do
    local text = "wildcard match"
    if present(match["function"]) then
      text = text .. " in " .. match["function"]
    end
    text = string.format("%s: the new case %s goes to the catch-all arm on line %d (it matched %s)", text,
      tostring(answer.case), match.catchAllLine + 1, table.concat(match.casesMatched or {}, ", "))
    table.insert(items, { filename = absolute(root, match.file), lnum = match.line + 1, col = 1, text = text, type = "W" })
  end
  return items
end

M.quickfix_commands.unionCaseImpact = {
  user_command = "FslensUnionCaseImpact",
  nargs = "+",
  complete = function(lead, line)
    -- The change is the first argument; the case and fields are the user's.
    if not line:match("^%s*%S+%s+%S+%s") then
      return vim.tbl_filter(function(change)
        return change:sub(1, #lead) == lead
      end, { "add", "remove", "change" })
    end
    return {}
  end,
  -- `{add|remove|change} {Case} [fields…]` for the union under the cursor.
  arguments = function(args, bufnr, callback)
    local words = vim.split(vim.trim(args or ""), "%s+")
    local change, case = words[1], words[2]
    if not (change == "add" or change == "remove" or change == "change") or not case then
      return callback("usage: :FslensUnionCaseImpact {add|remove|change} {Case} [fields…]")
    end
    local line, character = cursor_position(bufnr)
    local argument = {
      path = vim.api.nvim_buf_get_name(bufnr),
      line = line,
      character = character,
      change = change,
      case = case,
      timeoutMs = M.config.timeout_ms,
    }
    if #words > 2 then
      argument.fields = table.concat(words, " ", 3)
    end
    callback(nil, "fslens.unionCaseImpact", argument)
  end,
  items = M.union_impact_items,
  title = function(answer)
    return string.format("fslens %s %s of %s", tostring(answer.change), tostring(answer.case), tostring(answer.union))
  end,
  message = function(answer)
    local text = string.format("fslens: %s %s of %s breaks %d place(s)", tostring(answer.change), tostring(answer.case),
      tostring(answer.union), answer.impactCount or #(answer.impacts or {}))
    local wildcards = answer.wildcardMatchCount or #(answer.wildcardMatches or {})
    if wildcards > 0 then
      text = text .. string.format(", %d wildcard match(es) take it silently", wildcards)
    end
    text = text .. " (" .. (answer.complete and "complete" or "NOT complete") .. "; nothing written)"
    return text, answer.complete and vim.log.levels.INFO or vim.log.levels.WARN
  end,
}

--- The quickfix items of an fslens.signatureDrift answer: the implementation-only items at the
--- implementation, the signature-only items (the build fails on them) at the signature, each
--- with its fix's description (exported for tests).
function M.drift_items(root, answer)
  local items = {}
  local function add(item, side, type)
    local text = string.format("%s (%s): %s", item.name, tostring(item.kind), side)
    local fix = present(item.fix)
    if fix then
      text = text .. " — " .. tostring(fix.description)
      if fix.status ~= "ready" then
        text = text .. " [" .. tostring(fix.status) .. "]"
      end
    end
    if item.certain == false then
      text = text .. " (uncertain)"
    end
    local path = absolute(root, item.file)
    table.insert(items, {
      filename = path,
      lnum = item.line + 1,
      -- `name` may be qualified (Lib.Shapes.scale): the line holds its last part.
      col = column_of(line_of(path, item.line), item.name:match("([^.]+)$")),
      text = text,
      type = type,
    })
  end
  for _, pair in ipairs(answer.pairs or {}) do
    for _, item in ipairs(pair.implementationOnly or {}) do
      add(item, "not in " .. tostring(pair.signatureFile), "W")
    end
    for _, item in ipairs(pair.signatureOnly or {}) do
      add(item, "not in " .. tostring(pair.implementationFile) .. " (the build fails)", "E")
    end
  end
  return items
end

M.quickfix_commands.signatureDrift = {
  user_command = "FslensSignatureDrift",
  nargs = 0,
  -- The pair of the current file (its .fs or its .fsi).
  arguments = function(_, bufnr, callback)
    callback(nil, "fslens.signatureDrift", { path = vim.api.nvim_buf_get_name(bufnr), timeoutMs = M.config.timeout_ms })
  end,
  items = M.drift_items,
  title = function(answer)
    local pair = (answer.pairs or {})[1]
    return "fslens signature drift" .. (pair and (" of " .. tostring(pair.signatureFile)) or "")
  end,
  message = function(answer)
    local hidden, missing = 0, 0
    for _, pair in ipairs(answer.pairs or {}) do
      hidden = hidden + #(pair.implementationOnly or {})
      missing = missing + #(pair.signatureOnly or {})
    end
    local text = string.format("fslens: %d implementation-only, %d signature-only item(s) (%s)", hidden, missing,
      answer.complete and "complete" or "NOT complete")
    local level = (missing > 0 or not answer.complete) and vim.log.levels.WARN or vim.log.levels.INFO
    return text, level
  end,
}

-- ---------------------------------------------------------------------------------------
-- Starting the client

local function on_status(err, result, ctx)
  if err or not result then
    return
  end
  M.states[ctx.client_id] = result
  vim.schedule(function()
    vim.cmd("redrawstatus")
  end)
end

-- The client configuration every start shares: with setup() (below) and with Neovim 0.11's
-- vim.lsp.enable("fslens"), which reads lsp/fslens.lua (that file returns lsp_config()).
local function base_config()
  local config = M.config
  local handlers = { ["fslens/status"] = on_status }
  return {
    name = "fslens",
    cmd = M.server_command(config),
    cmd_env = config.cmd_env,
    capabilities = config.capabilities or vim.lsp.protocol.make_client_capabilities(),
    settings = config.settings,
    init_options = config.init_options,
    handlers = handlers,
    on_init = function(client)
      -- The initial readiness; fslens/status notifications keep it current.
      request(client, "workspace/executeCommand", { command = "fslens.status", arguments = { {} } }, function(err, result)
        if not err and result and not M.states[client.id] then
          M.states[client.id] = result
        end
      end)
    end,
    on_exit = function(_, _, client_id)
      M.states[client_id] = { state = "crashed", reason = "fslens exited" }
    end,
    on_attach = config.on_attach,
  }
end

local function client_config(root)
  local config = base_config()
  config.root_dir = root
  config.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
  return config
end

-- The :Fslens* user commands are defined further down.
local define_commands

--- The configuration lsp/fslens.lua returns for Neovim 0.11+'s vim.lsp.config/vim.lsp.enable:
--- `vim.lsp.enable("fslens")` alone starts fslens for F# buffers, rooted as setup() roots them,
--- with the :Fslens* commands; `vim.lsp.config("fslens", { cmd = { … } })` overrides fields.
function M.lsp_config()
  local config = base_config()
  config.filetypes = { "fsharp" }
  config.root_dir = function(bufnr, on_dir)
    local path = vim.api.nvim_buf_get_name(bufnr)
    if path ~= "" and vim.bo[bufnr].buftype == "" then
      on_dir(M.find_root(path))
    end
  end
  local user_on_attach = config.on_attach
  config.on_attach = function(client, bufnr)
    define_commands()
    if user_on_attach then
      user_on_attach(client, bufnr)
    end
  end
  return config
end

-- Root → client id, for Neovim 0.7 (vim.lsp.start reuses clients itself on 0.8+).
local clients_by_root = {}

function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == "" or vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local root = M.find_root(path)
  if has_start then
    return vim.lsp.start(client_config(root), { bufnr = bufnr })
  end
  local id = clients_by_root[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(client_config(root))
    clients_by_root[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

local function command(name, fn, nargs, complete, bang)
  vim.api.nvim_create_user_command(name, function(opts)
    fn(opts.args, opts.bang)
  end, { nargs = nargs or "?", complete = complete, bang = bang or false })
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", M.config, opts or {})
  -- A list the user gives replaces the default (tbl_deep_extend would merge it index by index
  -- on older Neovims: root_markers = { ".git" } must not keep "*.slnx" and "*.fsproj").
  local islist = vim.islist or vim.tbl_islist
  for key, value in pairs(opts or {}) do
    if type(value) == "table" and islist(value) then
      M.config[key] = value
    end
  end
  local group = vim.api.nvim_create_augroup("fslens", { clear = true })
  if M.config.filetype then
    if vim.filetype and vim.filetype.add and vim.fn.has("nvim-0.8") == 1 then
      vim.filetype.add({ extension = { fs = "fsharp", fsi = "fsharp", fsx = "fsharp", fsscript = "fsharp" } })
    end
    -- Neovim 0.7 does not know F# (*.fs is Forth there): set it after the built-in detection.
    vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
      group = group,
      pattern = { "*.fs", "*.fsi", "*.fsx", "*.fsscript" },
      callback = function(args)
        if vim.bo[args.buf].filetype ~= "fsharp" then
          vim.bo[args.buf].filetype = "fsharp"
        end
      end,
    })
  end
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = "fsharp",
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  define_commands()
  -- Buffers that were already open.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].filetype == "fsharp" then
      M.attach(bufnr)
    end
  end
end

define_commands = function()
  command("FslensFind", function(args) M.find(args) end)
  command("FslensFieldImpact", function(args) M.field_impact(args) end)
  command("FslensCheck", function(args) M.check(args) end, "?", function()
    return { "file", "project", "workspace" }
  end)
  command("FslensMakeVisible", function(args) M.make_visible(args) end)
  command("FslensRename", function(args) M.rename(args) end)
  command("FslensCallers", function() M.callers() end, 0)
  command("FslensCallees", function() M.callees() end, 0)
  command("FslensImplementations", function() M.implementations() end, 0)
  command("FslensTypeHierarchy", function() M.type_hierarchy() end, 0)
  for name, entry in pairs(M.quickfix_commands) do
    command(entry.user_command, function(args, bang) M.run_quickfix(name, args, nil, bang) end, entry.nargs,
      entry.complete, entry.bang)
  end
  command("FslensStatus", function() M.status() end, 0)
  command("FslensRestart", function() M.restart() end, 0)
end

return M
