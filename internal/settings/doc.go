// Package settings is the machinery of a settings table: the value of a
// setting as given (environment text, or a node of a YAML file decoded by
// its YAML type), the kinds of setting that turn a value into a typed
// field of a configuration (text, one of some words, a URL, a whole
// number, a boolean, a duration, a list, a JSON object), the error that
// says what a setting wants, the closest-name suggestion for a mistyped
// name, and the reading of a YAML file of settings.
//
// The table itself (names, defaults, docs, where each value goes) belongs
// to the program that owns the configuration: every kind here is generic
// over that configuration type C and takes a target, a function that
// returns the field of C the value goes into.
package settings
