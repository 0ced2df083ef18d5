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

; A module attribute set in a module's body (`@default_limit 100`), the
; module's constants; those the language or a tool reads (@moduledoc,
; @doc, @spec, @impl, @behaviour, ExUnit's @tag, ...) are not variables.
(call
  target: (identifier) @_keyword
  (do_block
    (unary_operator
      operator: "@"
      operand: (call target: (identifier) @name (arguments))) @definition.variable)
  (#eq? @_keyword "defmodule")
  (#not-any-of? @name
    "moduledoc" "doc" "typedoc" "spec" "type" "typep" "opaque" "callback" "macrocallback"
    "optional_callbacks" "impl" "behaviour" "derive" "enforce_keys" "deprecated" "since"
    "dialyzer" "compile" "on_load" "on_definition" "before_compile" "after_compile"
    "after_verify" "external_resource" "file" "vsn" "nifs" "fallback_to_any"
    "tag" "moduletag" "describetag"))
