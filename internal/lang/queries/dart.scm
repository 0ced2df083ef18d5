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
