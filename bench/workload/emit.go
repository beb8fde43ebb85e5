package workload

import (
	"bytes"
	"fmt"
	"sort"

	yamlv3 "gopkg.in/yaml.v3"
)

// topOrder is the order of an object's top-level keys, as people write them.
var topOrder = map[string]int{"apiVersion": 0, "kind": 1, "metadata": 2, "spec": 3}

// Marshal writes an object as block YAML (two-space indent), apiVersion,
// kind, metadata and spec first, other keys sorted: deterministic.
func Marshal(obj map[string]any) ([]byte, error) {
	n, err := toNode(obj, true)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := yamlv3.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func toNode(v any, top bool) (*yamlv3.Node, error) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if top {
				oi, iok := topOrder[keys[i]]
				oj, jok := topOrder[keys[j]]
				if iok != jok {
					return iok
				}
				if iok {
					return oi < oj
				}
			}
			return keys[i] < keys[j]
		})
		n := &yamlv3.Node{Kind: yamlv3.MappingNode, Tag: "!!map"}
		for _, k := range keys {
			c, err := toNode(t[k], false)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, &yamlv3.Node{Kind: yamlv3.ScalarNode, Tag: "!!str", Value: k}, c)
		}
		return n, nil
	case []any:
		n := &yamlv3.Node{Kind: yamlv3.SequenceNode, Tag: "!!seq"}
		for _, e := range t {
			c, err := toNode(e, false)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	default:
		var n yamlv3.Node
		if err := n.Encode(t); err != nil {
			return nil, fmt.Errorf("encoding %v: %w", t, err)
		}
		return &n, nil
	}
}
