; R. A function is a function literal assigned to a name (`f <- function(x)
; …`, `=`, `<<-`; S3 methods such as `print.summary` included); a class
; made by R6Class or setRefClass is a class of the name it is assigned
; to. testthat's test_that, describe and it blocks are tests, named by
; their description.

(binary_operator
  lhs: [(identifier) (string)] @name
  operator: ["<-" "=" "<<-"]
  rhs: (function_definition)) @definition.function
(binary_operator
  lhs: (function_definition)
  operator: ["->" "->>"]
  rhs: (identifier) @name) @definition.function

(binary_operator
  lhs: (identifier) @name
  operator: ["<-" "=" "<<-"]
  rhs: (call function: (identifier) @_class)
  (#any-of? @_class "R6Class" "setRefClass")) @definition.class

(call
  function: (identifier) @_test
  arguments: (arguments . (argument value: (string) @name.string))
  (#any-of? @_test "test_that" "describe" "it")) @definition.test

; A top-level variable (`DEFAULT_REPS <- 1000L`, `opts = list(…)`, `… ->
; cfg`): a function or class bound to a name is the one above (the first
; pattern wins). Locals are not definitions.
(program
  (binary_operator
    lhs: (identifier) @name
    operator: ["<-" "=" "<<-"]) @definition.variable)
(program
  (binary_operator
    operator: ["->" "->>"]
    rhs: (identifier) @name) @definition.variable)
