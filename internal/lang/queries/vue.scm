; extends: html
; Vue. A single-file component is parsed with the HTML grammar, so HTML's
; query serves: an element of the template with an id attribute is a
; definition, named by the id. The <script> and <style> blocks are text
; in this tree; their definitions come from their own languages' queries
; (docs/design.md, "Embedded regions").
