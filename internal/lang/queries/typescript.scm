; TypeScript. As JavaScript, plus interfaces, type aliases, enums,
; namespaces (`namespace X`) and modules (`declare module "x"`), and the
; bodiless signatures that define an interface's or abstract class's
; methods and a function's overloads.

(method_definition
  name: (property_identifier) @name (#eq? @name "constructor")) @definition.constructor
(method_definition name: (_) @name) @definition.method
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method

(class_declaration name: (_) @name) @definition.class
(abstract_class_declaration name: (_) @name) @definition.class
(class name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
(internal_module name: (_) @name) @definition.namespace
(module name: (_) @name) @definition.module

(function_declaration name: (_) @name) @definition.function
(generator_function_declaration name: (_) @name) @definition.function
(function_signature name: (_) @name) @definition.function

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

(assignment_expression
  left: [(identifier) (member_expression)] @name
  right: [(arrow_function) (function_expression) (generator_function)]) @definition.function

(pair
  key: [(property_identifier) (string) (number)] @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method

(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method

; A named function expression (`return function handler(req) {…}`). Bound
; to another name (`const f = function g() {}`, rare) it is a second
; definition inside the first.
(function_expression name: (identifier) @name) @definition.function
(generator_function name: (identifier) @name) @definition.function
