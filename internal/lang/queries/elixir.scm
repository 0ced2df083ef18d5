; Elixir. Everything is a call: defmodule and defprotocol make modules,
; defimpl an impl (named by the protocol), def, defp, defdelegate and
; guards functions (each clause one), defmacro macros; ExUnit's describe
; and test blocks are tests, named by their description. A function is
; named by its call, also with a guard (`def f(x) when x > 0`) or no
; parentheses (`def f do`).

(call
  target: (identifier) @_keyword
  (arguments . (alias) @name)
  (#any-of? @_keyword "defmodule" "defprotocol")) @definition.module
(call
  target: (identifier) @_keyword
  (arguments . (alias) @name)
  (#eq? @_keyword "defimpl")) @definition.impl

(call
  target: (identifier) @_keyword
  (arguments
    .
    [
      (identifier) @name
      (call target: (identifier) @name)
      (binary_operator left: (call target: (identifier) @name) operator: "when")
      (binary_operator left: (identifier) @name operator: "when")
    ])
  (#any-of? @_keyword "def" "defp" "defdelegate" "defguard" "defguardp" "defn" "defnp")) @definition.function
(call
  target: (identifier) @_keyword
  (arguments
    .
    [
      (identifier) @name
      (call target: (identifier) @name)
      (binary_operator left: (call target: (identifier) @name) operator: "when")
    ])
  (#any-of? @_keyword "defmacro" "defmacrop")) @definition.macro

(call
  target: (identifier) @_keyword
  (arguments . (string) @name.string)
  (do_block)
  (#any-of? @_keyword "describe" "test")) @definition.test
