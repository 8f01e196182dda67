package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// configFile is what a YAML file of settings holds: settings by name, and
// the per-channel settings under channels:.
type configFile struct {
	settings map[string]value
	channels []channelValues
	tools    toolsFile
}

// channelValues are the settings one channel overrides, in file order.
type channelValues struct {
	id       string
	settings []settingValue
}

type settingValue struct {
	setting setting
	value   value
}

// readConfigFile reads a YAML file of settings. Keys are the variable
// names in lower case (the names as written in the environment are
// accepted too); values keep their YAML type. An unknown key is an error
// that names the closest setting.
func readConfigFile(file string) (configFile, error) {
	out := configFile{settings: map[string]value{}}
	raw, err := os.ReadFile(file)
	if err != nil {
		return out, fmt.Errorf("read config file: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return out, fmt.Errorf("config file %s: %w", file, err)
	}
	if doc.Kind == 0 {
		return out, nil // an empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return out, fmt.Errorf("config file %s: want a map of settings (keys such as llm_model)", file)
	}
	var errs []error
	seen := map[string]string{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i].Value, root.Content[i+1]
		if strings.EqualFold(k, "channels") {
			chans, err := readChannels(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("config file %s: %w", file, err))
			}
			out.channels = chans
			continue
		}
		if strings.EqualFold(k, "mcp_servers") || strings.EqualFold(k, "tools") {
			if err := out.tools.read(k, v); err != nil {
				errs = append(errs, fmt.Errorf("config file %s: %w", file, err))
			}
			continue
		}
		s, ok := findSetting(k)
		if !ok {
			errs = append(errs, fmt.Errorf("config file %s: unknown key %q%s", file, k, yamlSuggestion(k, settingNames(false))))
			continue
		}
		if prev, ok := seen[s.name]; ok {
			errs = append(errs, fmt.Errorf("config file %s: keys %q and %q name the same setting", file, prev, k))
			continue
		}
		seen[s.name] = k
		if v.ShortTag() == "!!null" {
			continue // a key without a value leaves the setting as it was
		}
		out.settings[s.name] = value{node: v}
	}
	return out, errors.Join(errs...)
}

// readChannels reads the channels: block: channel ids, each with the
// settings a channel may override.
func readChannels(n *yaml.Node) ([]channelValues, error) {
	if n.Kind != yaml.MappingNode {
		return nil, errors.New("channels: want a map of channel ids to settings")
	}
	var out []channelValues
	var errs []error
	per := strings.ToLower(strings.Join(settingNames(true), ", "))
	for i := 0; i+1 < len(n.Content); i += 2 {
		id, set := n.Content[i].Value, n.Content[i+1]
		if set.Kind != yaml.MappingNode {
			errs = append(errs, fmt.Errorf("channels: %q: want a map of settings", id))
			continue
		}
		ch := channelValues{id: id}
		for j := 0; j+1 < len(set.Content); j += 2 {
			k, v := set.Content[j].Value, set.Content[j+1]
			s, ok := findSetting(k)
			if !ok || !s.channel {
				errs = append(errs, fmt.Errorf("channels: %q: unknown or not per-channel key %q%s (per channel: %s)", id, k,
					yamlSuggestion(k, settingNames(true)), per))
				continue
			}
			if v.ShortTag() == "!!null" {
				continue
			}
			ch.settings = append(ch.settings, settingValue{s, value{node: v}})
		}
		out = append(out, ch)
	}
	return out, errors.Join(errs...)
}

// yamlSuggestion is didYouMean for a key of the file, in lower case.
func yamlSuggestion(key string, names []string) string {
	if c, ok := closest(key, names); ok {
		return " (did you mean " + strings.ToLower(c) + "?)"
	}
	return ""
}
