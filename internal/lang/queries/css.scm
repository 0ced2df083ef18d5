; CSS. A rule set, named by its selectors; an at-rule with a block, named
; by its head ("@media (max-width: 600px)", "@keyframes spin").

(rule_set (selectors) @name) @definition.rule
(media_statement . "@media" @name . (_)* @name . (block)) @definition.rule
(supports_statement . "@supports" @name . (_)* @name . (block)) @definition.rule
(keyframes_statement . "@keyframes" @name . (keyframes_name) @name) @definition.rule
(at_rule . (at_keyword) @name . (_)* @name . (block)) @definition.rule
