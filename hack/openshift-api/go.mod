// The openshift/api release this project's CRDs follow (deploy/crds is generated from its manifests by
// hack/update-crds.mjs; its CRD test suites run in npm test). Moving to a newer one: change the version on the
// require line, run `node hack/update-crds.mjs`, review the diff (docs/openshift-api.md).
module featuregate-coordinator/hack/openshift-api

go 1.26

require github.com/openshift/api v0.0.0-20260420151639-34e60874783e
