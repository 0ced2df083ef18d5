; extends: html
; Svelte. The component's markup parses as HTML's does, so HTML's query
; serves: an element with an id attribute is a definition, named by the
; id. The <script> and <style> blocks are text in this tree.
