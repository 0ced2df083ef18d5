; PHP. Classes, interfaces, traits, enums, namespaces, functions and
; methods (constructors are the method __construct). A `namespace X;`
; statement without braces is a one-line definition: the grammar does not
; make it enclose the declarations after it.

(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(namespace_definition name: (namespace_name) @name) @definition.namespace
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method

; Constants and variables of a file's top level or a namespace's:
; `const VERSION = '1.0';`, `define('MAX', 3);`, `$config = […];` (named
; $config). Class constants and locals are not definitions.
(program (const_declaration (const_element (name) @name)) @definition.variable)
(namespace_definition body: (compound_statement (const_declaration (const_element (name) @name)) @definition.variable))
(program
  (expression_statement
    (function_call_expression
      function: (name) @_fn
      arguments: (arguments . (argument [(string) (encapsed_string)] @name.string)))) @definition.variable
  (#eq? @_fn "define"))
(program
  (expression_statement
    (assignment_expression left: (variable_name) @name)) @definition.variable)

; Pest blocks, named by their description: `it('works', function () {…})`,
; `test(…, fn () => …)`, `describe(…)`.
(expression_statement
  (function_call_expression
    function: (name) @_fn
    arguments: (arguments
      .
      (argument [(string) (encapsed_string)] @name.string)
      .
      (argument [(anonymous_function) (arrow_function)])))
  (#any-of? @_fn "it" "test" "describe")) @definition.test
