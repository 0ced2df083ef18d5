; embeds: `<script>` (JavaScript; TypeScript with `lang="ts"`), `<style>` (CSS)
; Svelte: <script> as JavaScript, or TypeScript with lang="ts"; <style> as
; CSS, unless its lang names another language (scss, less: left as it is).
; The first pattern that matches a region decides. A chunk that holds the
; whole element, its tags too, is the element's code (@injection.region).
((script_element
   (start_tag (attribute (attribute_name) @_name (quoted_attribute_value (attribute_value) @_lang)))
   (raw_text) @injection.content) @injection.region
 (#eq? @_name "lang")
 (#any-of? @_lang "ts" "typescript")
 (#set! injection.language "typescript"))

((script_element (raw_text) @injection.content) @injection.region
 (#set! injection.language "javascript"))

((style_element
   (start_tag (attribute (attribute_name) @_name (quoted_attribute_value (attribute_value) @_lang)))
   (raw_text) @injection.content)
 (#eq? @_name "lang")
 (#not-eq? @_lang "css")
 (#set! injection.language ""))

((style_element (raw_text) @injection.content) @injection.region
 (#set! injection.language "css"))
