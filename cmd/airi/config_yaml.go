package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/airi-go/airi/internal/settings"
	"github.com/airi-go/airi/tools"
)

// configFile is what a YAML file of settings holds: settings by name, and
// the per-channel settings under channels:.
type configFile struct {
	settings map[string]value
	channels []channelValues
	tools    tools.Config
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
	entries, err := settings.DecodeMap(raw)
	if errors.Is(err, settings.ErrNotMap) {
		return out, fmt.Errorf("config file %s: want a map of settings (keys such as llm_model)", file)
	}
	if err != nil {
		return out, fmt.Errorf("config file %s: %w", file, err)
	}
	var errs []error
	seen := map[string]string{}
	for _, e := range entries {
		if strings.EqualFold(e.Key, "channels") {
			chans, err := readChannels(e.Value)
			if err != nil {
				errs = append(errs, fmt.Errorf("config file %s: %w", file, err))
			}
			out.channels = chans
			continue
		}
		if strings.EqualFold(e.Key, "mcp_servers") || strings.EqualFold(e.Key, "tools") {
			if err := out.tools.DecodeYAML(e.Key, e.Value); err != nil {
				errs = append(errs, fmt.Errorf("config file %s: %w", file, err))
			}
			continue
		}
		s, ok := findSetting(e.Key)
		if !ok {
			errs = append(errs, fmt.Errorf("config file %s: unknown key %q%s", file, e.Key, settings.DidYouMeanKey(e.Key, settingNames(false))))
			continue
		}
		if prev, ok := seen[s.name]; ok {
			errs = append(errs, fmt.Errorf("config file %s: keys %q and %q name the same setting", file, prev, e.Key))
			continue
		}
		seen[s.name] = e.Key
		if e.Null() {
			continue // a key without a value leaves the setting as it was
		}
		out.settings[s.name] = settings.FromYAML(e.Value)
	}
	return out, errors.Join(errs...)
}

// readChannels reads the channels: block: channel ids, each with the
// settings a channel may override.
func readChannels(n *yaml.Node) ([]channelValues, error) {
	ids, err := settings.Entries(n)
	if err != nil {
		return nil, errors.New("channels: want a map of channel ids to settings")
	}
	var out []channelValues
	var errs []error
	per := strings.ToLower(strings.Join(settingNames(true), ", "))
	for _, id := range ids {
		set, err := settings.Entries(id.Value)
		if err != nil {
			errs = append(errs, fmt.Errorf("channels: %q: want a map of settings", id.Key))
			continue
		}
		ch := channelValues{id: id.Key}
		for _, e := range set {
			s, ok := findSetting(e.Key)
			if !ok || !s.channel {
				errs = append(errs, fmt.Errorf("channels: %q: unknown or not per-channel key %q%s (per channel: %s)", id.Key, e.Key,
					settings.DidYouMeanKey(e.Key, settingNames(true)), per))
				continue
			}
			if e.Null() {
				continue
			}
			ch.settings = append(ch.settings, settingValue{s, settings.FromYAML(e.Value)})
		}
		out = append(out, ch)
	}
	return out, errors.Join(errs...)
}
