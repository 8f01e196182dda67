package postgres

import "errors"

// errRoleEnded is what a role function that returned nil while its role was held is reported as.
var errRoleEnded = errors.New("ended on its own")
