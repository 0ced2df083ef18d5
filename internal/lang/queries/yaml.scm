; YAML. As JSON: a key whose value is a block or flow mapping or sequence.

(block_mapping_pair
  key: (_) @name
  value: (block_node [(block_mapping) (block_sequence)])) @definition.key
(block_mapping_pair
  key: (_) @name
  value: (flow_node [(flow_mapping) (flow_sequence)])) @definition.key
(flow_pair
  key: (_) @name
  value: (flow_node [(flow_mapping) (flow_sequence)])) @definition.key
