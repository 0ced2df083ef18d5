; Python: classes and defs (a def whose innermost enclosing definition is a
; class is made a method by package outline). The def's own node is the
; definition, not the decorated_definition around it, as in Python's ast.

(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
