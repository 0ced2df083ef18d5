; extends: javascript
; TypeScript. As JavaScript, plus interfaces, type aliases, enums,
; namespaces (`namespace X`) and modules (`declare module "x"`), and the
; bodiless signatures that define an interface's or abstract class's
; methods and a function's overloads.

(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method

(abstract_class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
(internal_module name: (_) @name) @definition.namespace
(module name: (_) @name) @definition.module

(function_signature name: (_) @name) @definition.function

; A class field bound to a function: TypeScript's grammar calls the field
; public_field_definition, and names it by its name (JavaScript's
; field_definition, by its property).
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
