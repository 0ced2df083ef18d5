; OCaml. Modules and functors; module types (interfaces); classes and
; their methods; types; functions: a let binding with parameters, or of a
; `fun`/`function` expression, named by its name, local ones included
; (`let rec go …` inside a function). A binding of a plain value is a
; variable at the top level or in a module's structure (below), and not a
; definition elsewhere.

(module_definition (module_binding (module_name) @name)) @definition.module
(module_type_definition (module_type_name) @name) @definition.interface

(class_definition (class_binding (class_name) @name)) @definition.class
(method_definition (method_name) @name) @definition.method

(type_binding name: [(type_constructor) (type_constructor_path (type_constructor))] @name) @definition.type

(let_binding pattern: (value_name) @name (parameter)) @definition.function
(let_binding pattern: (value_name) @name body: [(fun_expression) (function_expression)]) @definition.function

; A plain value bound at the top level of a file or in a module's
; structure (`let max_depth = 10`) is a variable; `let _ = …` and `let ()
; = …` bind no name. Local `let … in` values are not definitions.
(compilation_unit
  (value_definition (let_binding pattern: (value_name) @name) @definition.variable)
  (#not-eq? @name "_"))
(structure
  (value_definition (let_binding pattern: (value_name) @name) @definition.variable)
  (#not-eq? @name "_"))
