//go:build tools

// Pins Helm (v4), which hack/helm/build.sh builds from Go modules for the chart tests.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
