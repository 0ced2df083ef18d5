; extends: svelte
; embeds: `<script>` (JavaScript; TypeScript with `lang="ts"`, TSX with `lang="tsx"`), `<style>` (CSS)
; Vue single-file components, parsed with the HTML grammar: <script> as
; JavaScript (lang="js" or "jsx" too), TypeScript with lang="ts", TSX with
; lang="tsx"; a script whose lang names another language (coffee) is left
; as it is. <style> as CSS, unless its lang names another language (scss,
; less, stylus: left as it is). The <template> is the host's: HTML, its
; {{ }} expressions text. These patterns come before Svelte's, whose
; script and style rules Vue shares (the first that matches a region
; decides): TSX, and the scripts Svelte would take for JavaScript that Vue
; leaves as they are. lang is compared ASCII case-insensitively (Go's (?i)
; also folds ſ and K into s and k: a lang that is not ASCII names no
; language), quoted or not.
((script_element
   (start_tag
     (attribute (attribute_name) @_name
       [(attribute_value) @_lang (quoted_attribute_value (attribute_value) @_lang)]))
   (raw_text) @injection.content) @injection.region
 (#match? @_name "(?i)^lang$")
 (#match? @_lang "^[[:ascii:]]*$")
 (#match? @_lang "(?i)^tsx$")
 (#set! injection.language "tsx"))

((script_element
   (start_tag
     (attribute (attribute_name) @_name
       [(attribute_value) @_lang (quoted_attribute_value (attribute_value) @_lang)]))
   (raw_text) @injection.content)
 (#match? @_name "(?i)^lang$")
 (#match? @_lang "[^[:ascii:]]")
 (#set! injection.language ""))

((script_element
   (start_tag
     (attribute (attribute_name) @_name
       [(attribute_value) @_lang (quoted_attribute_value (attribute_value) @_lang)]))
   (raw_text) @injection.content)
 (#match? @_name "(?i)^lang$")
 (#not-match? @_lang "(?i)^(js|jsx|javascript|ts|typescript)$")
 (#set! injection.language ""))
