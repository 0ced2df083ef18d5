; Scala. Classes, objects, traits, enums, functions (methods in a class,
; object or trait: package outline makes a function whose innermost
; enclosing definition is a type a method), abstract method declarations,
; type definitions, given instances and packages with a body.

(function_definition name: (_) @name) @definition.function
(function_declaration name: (_) @name) @definition.function

(class_definition name: (_) @name) @definition.class
(object_definition name: (_) @name) @definition.object
(trait_definition name: (_) @name) @definition.trait
(enum_definition name: (_) @name) @definition.enum
(type_definition name: (_) @name) @definition.type
(given_definition name: (_) @name) @definition.object
(package_clause name: (_) @name body: (template_body)) @definition.namespace

; Top-level `val`s and `var`s (Scala 3). Members of classes and objects and
; locals are not definitions.
(compilation_unit (val_definition pattern: (identifier) @name) @definition.variable)
(compilation_unit (var_definition pattern: (identifier) @name) @definition.variable)

; munit and ScalaTest (FunSuite, FunSpec) blocks, named by their
; description: `test("adds") { … }`, `describe("Stack") { it("pops") { … } }`.
(call_expression
  function: (call_expression
    function: (identifier) @_fn
    arguments: (arguments . (string) @name.string))
  arguments: (block)
  (#any-of? @_fn "test" "describe" "it")) @definition.test
