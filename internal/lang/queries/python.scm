; Python: classes and defs (a def whose innermost enclosing definition is a
; class is made a method by package outline). The def's own node is the
; definition, not the decorated_definition around it, as in Python's ast.

(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class

; A module-level variable or constant (`DEFAULTS = {…}`, `log: Logger =
; …`): where a reader is in a module. Locals and class attributes are not.
(module (expression_statement (assignment left: (identifier) @name) @definition.variable))
