; Dart. Classes, mixins (traits), enums, extensions (impls, named by the
; extension's name), typedefs. The grammar makes a function's signature
; and its body siblings, so a function, method, getter, setter or
; constructor with a body is captured with the body that follows it: one
; definition from the signature's start to the body's end (package
; outline joins the captures). Getters and setters are properties; a
; method of a class is a function that package outline makes a method;
; an abstract method's signature alone is one too.

(class_definition name: (identifier) @name) @definition.class
(mixin_declaration (identifier) @name) @definition.trait
(enum_declaration name: (identifier) @name) @definition.enum
(extension_declaration name: (identifier) @name) @definition.impl
(type_alias . (type_identifier) @name) @definition.type

(program
  (function_signature name: (identifier) @name) @definition.function
  .
  (function_body) @definition.function)
(program
  (getter_signature name: (identifier) @name) @definition.property
  .
  (function_body) @definition.property)

(class_body
  (method_signature (function_signature name: (identifier) @name)) @definition.function
  .
  (function_body) @definition.function)
(class_body
  (method_signature [(getter_signature name: (identifier) @name) (setter_signature name: (identifier) @name)]) @definition.property
  .
  (function_body) @definition.property)
(class_body
  (method_signature [(constructor_signature name: (identifier) @name) (factory_constructor_signature . (identifier) @name)]) @definition.constructor
  .
  (function_body) @definition.constructor)
(class_body (declaration (function_signature name: (identifier) @name)) @definition.function)

(extension_body
  (method_signature (function_signature name: (identifier) @name)) @definition.function
  .
  (function_body) @definition.function)
(extension_body
  (method_signature [(getter_signature name: (identifier) @name) (setter_signature name: (identifier) @name)]) @definition.property
  .
  (function_body) @definition.property)

(enum_body
  (method_signature (function_signature name: (identifier) @name)) @definition.function
  .
  (function_body) @definition.function)

; Top-level variables and constants (`const maxItems = 10;`, `final
; prices = {…};`, `var counter = 0;`), each name of a list one. Class
; fields and locals are not definitions.
(program (static_final_declaration_list (static_final_declaration (identifier) @name) @definition.variable))
(program (initialized_identifier_list (initialized_identifier (identifier) @name) @definition.variable))

; package:test and flutter_test blocks, named by their description:
; `group('Cart', () {…})`, `test('adds', …)`, `testWidgets(…)`.
(expression_statement
  .
  (identifier) @_fn
  .
  (selector (argument_part (arguments . (argument (string_literal) @name.string))))
  (#any-of? @_fn "group" "test" "testWidgets")) @definition.test
