package brawl

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ApplyPatch applies observation_patch ops (a subset of RFC 6902 JSON Patch: add, replace,
// remove at an RFC 6901 path, the value as JSON text) in order to a copy of doc and returns the
// copy; doc itself is never changed, so a Turn handed to a bot stays as it was.
func ApplyPatch(doc any, ops []Op) (any, error) {
	doc = deepCopy(doc)
	for _, op := range ops {
		var value any
		if op.Op != "remove" {
			if err := json.Unmarshal([]byte(op.Value), &value); err != nil {
				return nil, fmt.Errorf("patch value at %q is not JSON: %v", op.Path, err)
			}
		}
		tokens, err := pointer(op.Path)
		if err != nil {
			return nil, err
		}
		if len(tokens) == 0 {
			if op.Op == "remove" {
				return nil, fmt.Errorf("cannot remove the whole observation")
			}
			doc = value
			continue
		}
		doc, err = applyAt(doc, tokens, op.Op, value, op.Path)
		if err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// Op is one patch step, as in brawl.bot.v1.PatchOp.
type Op struct{ Op, Path, Value string }

func pointer(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("bad JSON Pointer %q", path)
	}
	parts := strings.Split(path[1:], "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// applyAt returns node with the op applied at tokens (arrays are values in Go, so each level
// hands its possibly new slice back to its parent).
func applyAt(node any, tokens []string, op string, value any, path string) (any, error) {
	t := tokens[0]
	last := len(tokens) == 1
	switch n := node.(type) {
	case map[string]any:
		if last {
			switch op {
			case "add", "replace":
				n[t] = value
			case "remove":
				delete(n, t)
			default:
				return nil, fmt.Errorf("unknown patch op %q", op)
			}
			return n, nil
		}
		child, ok := n[t]
		if !ok {
			return nil, fmt.Errorf("patch path %s does not exist", path)
		}
		updated, err := applyAt(child, tokens[1:], op, value, path)
		n[t] = updated
		return n, err
	case []any:
		i := len(n)
		if t != "-" {
			var err error
			if i, err = strconv.Atoi(t); err != nil || i < 0 || i > len(n) {
				return nil, fmt.Errorf("patch path %s: bad index %q", path, t)
			}
		}
		if last {
			switch op {
			case "add":
				n = append(n, nil)
				copy(n[i+1:], n[i:])
				n[i] = value
			case "replace":
				if i >= len(n) {
					return nil, fmt.Errorf("patch path %s does not exist", path)
				}
				n[i] = value
			case "remove":
				if i >= len(n) {
					return nil, fmt.Errorf("patch path %s does not exist", path)
				}
				n = append(n[:i], n[i+1:]...)
			default:
				return nil, fmt.Errorf("unknown patch op %q", op)
			}
			return n, nil
		}
		if i >= len(n) {
			return nil, fmt.Errorf("patch path %s does not exist", path)
		}
		updated, err := applyAt(n[i], tokens[1:], op, value, path)
		n[i] = updated
		return n, err
	default:
		return nil, fmt.Errorf("patch path %s does not exist", path)
	}
}

func deepCopy(v any) any {
	switch n := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(n))
		for k, x := range n {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(n))
		for i, x := range n {
			out[i] = deepCopy(x)
		}
		return out
	default:
		return v
	}
}

// dropNulls removes the null members protojson writes for unset message fields and unset
// optional scalars: the observation's JSON form leaves those out.
func dropNulls(v any) any {
	switch n := v.(type) {
	case map[string]any:
		for k, x := range n {
			if x == nil {
				delete(n, k)
			} else {
				n[k] = dropNulls(x)
			}
		}
	case []any:
		for i, x := range n {
			n[i] = dropNulls(x)
		}
	}
	return v
}
