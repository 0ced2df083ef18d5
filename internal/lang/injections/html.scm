; embeds: `<script>` (JavaScript; JSON for a JSON type), `<style>` (CSS)
; HTML: <script> as JavaScript and <style> as CSS. A script whose type says
; JSON (application/json, importmap, application/ld+json) is JSON; one of
; another type that is not JavaScript (a template, text/x-handlebars) is
; left as it is. The first pattern that matches a region decides. A chunk
; that holds the whole element, its tags too, is the element's code
; (@injection.region).
((script_element
   (start_tag (attribute (attribute_name) @_name (quoted_attribute_value (attribute_value) @_type)))
   (raw_text) @injection.content) @injection.region
 (#eq? @_name "type")
 (#match? @_type "json|importmap")
 (#set! injection.language "json"))

((script_element
   (start_tag (attribute (attribute_name) @_name (quoted_attribute_value (attribute_value) @_type)))
   (raw_text) @injection.content)
 (#eq? @_name "type")
 (#not-match? @_type "^(module|(text|application)/(java|ecma)script)$")
 (#set! injection.language ""))

((script_element (raw_text) @injection.content) @injection.region
 (#set! injection.language "javascript"))

((style_element (raw_text) @injection.content) @injection.region
 (#set! injection.language "css"))
