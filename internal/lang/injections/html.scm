; embeds: `<script>` (JavaScript; JSON for a JSON type), `<style>` (CSS)
; HTML: <script> as JavaScript and <style> as CSS. A script whose type says
; JSON (application/json, importmap, application/ld+json, speculationrules)
; is JSON; one of another type that is not JavaScript (a template,
; text/x-handlebars) is left as it is. Types are compared as browsers do:
; ASCII case-insensitively (Go's (?i) also folds ſ and K, the Kelvin sign,
; into s and k, so a type that is not ASCII is never JavaScript nor JSON),
; without the white space around them, quoted or not; an empty type is
; JavaScript. The first pattern that matches a region decides. A chunk
; that holds the whole element, its tags too, is the element's code
; (@injection.region).
((script_element
   (start_tag
     (attribute (attribute_name) @_name
       [(attribute_value) @_type (quoted_attribute_value (attribute_value) @_type)]))
   (raw_text) @injection.content) @injection.region
 (#match? @_name "(?i)^type$")
 (#match? @_type "^[[:ascii:]]*$")
 (#match? @_type "(?i)json|importmap|speculationrules")
 (#set! injection.language "json"))

((script_element
   (start_tag
     (attribute (attribute_name) @_name
       [(attribute_value) @_type (quoted_attribute_value (attribute_value) @_type)]))
   (raw_text) @injection.content)
 (#match? @_name "(?i)^type$")
 (#match? @_type "[^[:ascii:]]")
 (#set! injection.language ""))

((script_element
   (start_tag
     (attribute (attribute_name) @_name
       [(attribute_value) @_type (quoted_attribute_value (attribute_value) @_type)]))
   (raw_text) @injection.content)
 (#match? @_name "(?i)^type$")
 (#not-match? @_type "^\\s*(?i:module|(text|application)/(x-)?(java|ecma)script|text/javascript1\\.[0-5]|text/(jscript|livescript))?\\s*$")
 (#set! injection.language ""))

((script_element (raw_text) @injection.content) @injection.region
 (#set! injection.language "javascript"))

((style_element (raw_text) @injection.content) @injection.region
 (#set! injection.language "css"))
