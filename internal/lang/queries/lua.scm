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
