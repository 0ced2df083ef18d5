; JavaScript. Functions, classes, methods (in a class body or an object
; literal), and function or arrow expressions bound to a name: a variable
; (`const f = () => {}`), an assignment (`exports.f = function () {}`, named
; by the whole left side), an object key or a class field; the binding
; (the declarator, the assignment, the pair) is the definition, so it starts
; on the name's line. Anonymous callbacks are not definitions.

(method_definition
  name: (property_identifier) @name (#eq? @name "constructor")) @definition.constructor
(method_definition name: (_) @name) @definition.method

(class_declaration name: (_) @name) @definition.class
(class name: (_) @name) @definition.class

(function_declaration name: (_) @name) @definition.function
(generator_function_declaration name: (_) @name) @definition.function

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

(assignment_expression
  left: [(identifier) (member_expression)] @name
  right: [(arrow_function) (function_expression) (generator_function)]) @definition.function

(pair
  key: [(property_identifier) (string) (number)] @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method

; A named function expression (`return function handler(req) {…}`). Bound
; to another name (`const f = function g() {}`, rare) it is a second
; definition inside the first.
(function_expression name: (identifier) @name) @definition.function
(generator_function name: (identifier) @name) @definition.function

; not inherited: the grammars of TypeScript and TSX, which extend this
; query, have no field_definition (their class field is
; public_field_definition, in typescript.scm).
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
