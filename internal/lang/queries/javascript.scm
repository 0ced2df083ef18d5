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

; A module's anonymous default export is named default, as the language
; names it (`export default function () {}`: its .name is "default").
(export_statement
  "default" @name
  value: [(function_expression !name) (arrow_function) (generator_function !name)]) @definition.function
(export_statement "default" @name value: (class !name)) @definition.class

; Module-level variables and constants of any value (`export const schema =
; z.object({…})`, `const routes = […]`): where a reader is in a module. A
; binding to a function is the function above (the first pattern wins).
; Locals are not definitions.
(program
  [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)
   (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)])
(program
  (export_statement
    declaration: [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)
                  (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)]))

; Test blocks of Jest, Vitest, Mocha, Jasmine and node:test, named by their
; description: `describe('parser', () => {…})`, `it.only(…)`,
; `test.each(table)('adds %i', …)`.
(expression_statement
  (call_expression
    function: [(identifier) @_fn
               (member_expression object: (identifier) @_fn)
               (call_expression function: (member_expression object: (identifier) @_fn))]
    arguments: (arguments . [(string) (template_string)] @name.string)) @definition.test
  (#match? @_fn "^(describe|context|suite|it|test|specify|bench|fdescribe|xdescribe|fit|xit)$"))

; not inherited: the grammars of TypeScript and TSX, which extend this
; query, have no field_definition (their class field is
; public_field_definition, in typescript.scm).
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
