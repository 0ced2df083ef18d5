; Lua. `function f()`, `local function f()`, `function M.f()` (named "M.f"),
; `function M:f()` (a method, "M:f"), and a function expression bound to a
; name (`local f = function() … end`, `M.f = function() … end`).

(function_declaration name: (method_index_expression) @name) @definition.method
(function_declaration name: (_) @name) @definition.function

(assignment_statement
  (variable_list . name: (_) @name)
  (expression_list . value: (function_definition))) @definition.function

(field
  name: (identifier) @name
  value: (function_definition)) @definition.method

; Variables of the chunk's top level (`local M = {}`, `local DEFAULTS =
; {…}`, a global `VERSION = "1.0"`), named by the first name: a function
; bound to a name is the function above (the first pattern wins). Locals
; of functions and fields (`M.x = 3`) are not definitions.
(chunk (variable_declaration (assignment_statement (variable_list . name: (identifier) @name)) @definition.variable))
(chunk (assignment_statement (variable_list . name: (identifier) @name)) @definition.variable)

; busted blocks, named by their description: `describe("heap", function()
; … end)`, `it("pops", …)`.
(function_call
  name: (identifier) @_fn
  arguments: (arguments . (string) @name.string . (function_definition))
  (#any-of? @_fn "describe" "context" "insulate" "expose" "it" "spec" "test" "pending")) @definition.test
