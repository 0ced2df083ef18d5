; HTML. An element with an id attribute, named by the id: the anchors a
; page is navigated by. Other elements are not definitions.

(element
  (start_tag
    (attribute
      (attribute_name) @_attr
      (quoted_attribute_value (attribute_value) @name))
    (#eq? @_attr "id"))) @definition.element
(element
  (start_tag
    (attribute
      (attribute_name) @_attr
      (attribute_value) @name)
    (#eq? @_attr "id"))) @definition.element
