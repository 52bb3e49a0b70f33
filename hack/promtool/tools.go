//go:build tools

// Pins Prometheus, whose promtool hack/promtool/build.sh builds from Go modules for the alert tests
// (promtool check rules / test rules).
package tools

import _ "github.com/prometheus/prometheus/cmd/promtool"
