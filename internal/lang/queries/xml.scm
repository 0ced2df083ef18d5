; XML. An element that holds other elements is a definition, named by its
; tag (`project`, `dependencies`, `plugin`): the structure a reader walks.
; Leaf elements (`<version>3.2.4</version>`) and empty ones are not.

(element (STag (Name) @name) (content (element))) @definition.element
