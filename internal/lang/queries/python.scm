; Python definitions. A def directly in a class body (decorated or not) is a
; method; every other def is a function. The def's own node is the
; definition, not the decorated_definition around it, as in Python's ast.

(class_definition
  body: (block
    (function_definition name: (identifier) @name) @definition.method))

(class_definition
  body: (block
    (decorated_definition
      definition: (function_definition name: (identifier) @name) @definition.method)))

(function_definition name: (identifier) @name) @definition.function

(class_definition name: (identifier) @name) @definition.class
