package analysis

// Hover at the analysis layer: the hovered span's text and the Markdown,
// exactly, for built-in kinds, a workspace CRD, an XRD-derived kind, a
// Composition's bases and fieldPath strings, and where hover says nothing.

import (
	"context"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
)

// hoverResult writes a hover as "[hovered text]" and its Markdown.
func hoverResult(f *document.File, off int, env Env) string {
	h := Hover(context.Background(), f, off, env)
	if h == nil {
		return ""
	}
	return "[" + spanText(f, h.Span) + "]\n" + h.Markdown
}

const hoverDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          ports:
            - containerPort: 80
`

func testHover(t *testing.T, env Env, _ FileReader) {
	runFeature(t, "hover.yaml", env, []featureCase{
		// testdata/golden/hover/builtin-hover.yaml's cases.
		{name: "built-in field", text: replaceOnce(hoverDeployment, "  replicas", "  rep‸licas"), want: "[replicas]\n" +
			"**replicas** `integer (int32)`\n" +
			"\n" +
			"Number of desired pods. This is a pointer to distinguish between explicit zero and not specified. Defaults to 1.\n" +
			"\n" +
			"`spec.replicas` — Schema: built-in kubernetes v1.37"},
		{name: "built-in required field in a list item", text: replaceOnce(hoverDeployment, "- name: web", "- na‸me: web"), want: "[name]\n" +
			"**name** `string` — required\n" +
			"\n" +
			"Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name (DNS_LABEL). Cannot be updated.\n" +
			"\n" +
			"`spec.template.spec.containers[0].name` — Schema: built-in kubernetes v1.37"},
		{name: "built-in field two lists down", text: replaceOnce(hoverDeployment, "containerPort", "con‸tainerPort"), want: "[containerPort]\n" +
			"**containerPort** `integer (int32)` — required\n" +
			"\n" +
			"Number of port to expose on the pod's IP address. This must be a valid port number, 0 < x < 65536.\n" +
			"\n" +
			"`spec.template.spec.containers[0].ports[0].containerPort` — Schema: built-in kubernetes v1.37"},
		{name: "built-in kind on apiVersion", text: replaceOnce(hoverDeployment, "apiVersion", "‸apiVersion"), want: "[apiVersion]\n" +
			"**Deployment** `apps/v1` (Namespaced)\n" +
			"\n" +
			"Deployment enables declarative updates for Pods and ReplicaSets.\n" +
			"\n" +
			"Group `apps`, versions: v1. Defined by `deployments.apps`. Schema: built-in kubernetes v1.37"},
		{name: "built-in field above a syntax error", text: replaceOnce(hoverDeployment, "  replicas: 2", "  rep‸licas: 2\n  paused: [tru"), want: "[replicas]\n" +
			"**replicas** `integer (int32)`\n" +
			"\n" +
			"Number of desired pods. This is a pointer to distinguish between explicit zero and not specified. Defaults to 1.\n" +
			"\n" +
			"`spec.replicas` — Schema: built-in kubernetes v1.37"},
		// A workspace CRD: an enum's values, a value's hover is its key's.
		{name: "CRD enum field", text: "apiVersion: example.org/v1\nkind: Database\nmetadata:\n  name: orders\nspec:\n  eng‸ine: postgres\n", want: "[engine]\n" +
			"**engine** `string` — required\n" +
			"\n" +
			"The database engine.\n" +
			"\n" +
			"- one of: `\"postgres\"`, `\"mysql\"`\n" +
			"\n" +
			"`spec.engine` — Schema: workspace file `crd.yaml`"},
		{name: "CRD field from its value", text: "apiVersion: example.org/v1\nkind: Database\nmetadata:\n  name: orders\nspec:\n  size: 1‸0\n", want: "[10]\n" +
			"**size** `integer (int32)`\n" +
			"\n" +
			"- minimum: 1\n" +
			"\n" +
			"`spec.size` — Schema: workspace file `crd.yaml`"},
		{name: "CRD map value", text: "apiVersion: example.org/v1\nkind: Database\nmetadata:\n  name: orders\nspec:\n  labels:\n    te‸am: a\n", want: "[team]\n" +
			"**team** `string`\n" +
			"\n" +
			"`spec.labels.team` — Schema: workspace file `crd.yaml`"},
		{name: "CRD kind", text: "apiVersion: example.org/v1\nkind: Data‸base\n", want: "[Database]\n" +
			"**Database** `example.org/v1` (Namespaced)\n" +
			"\n" +
			"A Database is a managed database.\n" +
			"\n" +
			"Group `example.org`, versions: v1. Defined by `databases.example.org`. Schema: workspace file `crd.yaml`"},
		// An XR of the golden XRD: its kind is derived from the XRD.
		{name: "XRD-derived kind field", text: "apiVersion: database.example.org/v1alpha1\nkind: XPostgreSQLInstance\nmetadata:\n  name: x\nspec:\n  parameters:\n    stor‸ageGB: 5\n", want: "[storageGB]\n" +
			"**storageGB** `integer` — required\n" +
			"\n" +
			"`spec.parameters.storageGB` — Schema: workspace file `xrd.yaml`"},
		{name: "XRD claim kind", text: "apiVersion: database.example.org/v1alpha1\nkind: PostgreSQL‸Instance\n", want: "[PostgreSQLInstance]\n" +
			"**PostgreSQLInstance** `database.example.org/v1alpha1` (Namespaced)\n" +
			"\n" +
			"Group `database.example.org`, versions: v1alpha1. Defined by `xpostgresqlinstances.database.example.org`. Schema: workspace file `xrd.yaml`"},
		// The upjet RDS CRD (testdata/golden/hover/rds-hover.yaml).
		{name: "RDS enum with quotes", text: "apiVersion: rds.aws.upbound.io/v1beta1\nkind: Instance\nspec:\n  deletion‸Policy: Delete\n", want: "[deletionPolicy]\n" +
			"**deletionPolicy** `string`\n" +
			"\n" +
			"DeletionPolicy specifies what will happen to the underlying external\n" +
			"when this managed resource is deleted - either \"Delete\" or \"Orphan\" the\n" +
			"external resource.\n" +
			"This field is planned to be deprecated in favor of the ManagementPolicies\n" +
			"field in a future release. Currently, both could be set independently and\n" +
			"non-default values would be honored if the feature flag is enabled.\n" +
			"See the design doc for more information: https://github.com/crossplane/crossplane/blob/499895a25d1a1a0ba1604944ef98ac7a1a71f197/design/design-doc-observe-only-resources.md?plain=1#L223\n" +
			"\n" +
			"- default: `\"Delete\"`\n" +
			"- one of: `\"Orphan\"`, `\"Delete\"`\n" +
			"\n" +
			"`spec.deletionPolicy` — Schema: workspace file `rds.yaml`"},
		{name: "RDS list item", text: "apiVersion: rds.aws.upbound.io/v1beta1\nkind: Instance\nspec:\n  forProvider:\n    vpcSecurityGroupIds:\n      - sg‸-1\n", want: "[sg-1]\n" +
			"**spec.forProvider.vpcSecurityGroupIds[0]** `string`\n" +
			"\n" +
			"`spec.forProvider.vpcSecurityGroupIds[0]` — Schema: workspace file `rds.yaml`"},
		// Nothing to say.
		{name: "unknown field", text: "apiVersion: example.org/v1\nkind: Database\nspec:\n  col‸or: red\n", want: ""},
		{name: "unknown kind", text: "apiVersion: example.org/v1\nkind: Nope\nspec:\n  eng‸ine: x\n", want: ""},
		{name: "comment", text: "apiVersion: example.org/v1\nkind: Database\n# eng‸ine\n", want: ""},
	}, hoverResult)
}

// A Composition's base and its patches' fieldPath strings
// (testdata/golden/compositions/pipeline.yaml's hover.pt Composition).
var hoverComposition = ptComposition("hover.pt.database.example.org", `
              - type: FromCompositeFieldPath
                fromFieldPath: spec.parameters.storageGB
                toFieldPath: spec.forProvider.allocatedStorage
              - type: ToCompositeFieldPath
                fromFieldPath: status.atProvider.address
                toFieldPath: status.address
`)

func testHoverComposition(t *testing.T, env Env, _ FileReader) {
	at := func(old, marked string) string { return replaceOnce(hoverComposition, old, marked) }
	runFeature(t, "composition.yaml", env, []featureCase{
		{name: "input's resources", text: at("        resources:", "        reso‸urces:"), want: "[resources]\n" +
			"**resources** `array of object` — required\n" +
			"\n" +
			"Resources is a list of resource templates that will be used when a\n" +
			"composite resource is created.\n" +
			"\n" +
			"`resources` — Schema: built-in functions"},
		{name: "base apiVersion", text: at("apiVersion: rds.aws", "apiVersion: rds‸.aws"), want: "[rds.aws.upbound.io/v1beta1]\n" +
			"**Instance** `rds.aws.upbound.io/v1beta1` (Cluster)\n" +
			"\n" +
			"Instance is the Schema for the Instances API.\n" +
			"\n" +
			"Group `rds.aws.upbound.io`, versions: v1beta1, v1beta2, v1beta3. Defined by `instances.rds.aws.upbound.io`. Schema: workspace file `rds.yaml`"},
		{name: "base field", text: at("instanceClass", "instance‸Class"), want: "[instanceClass]\n" +
			"**instanceClass** `string`\n" +
			"\n" +
			"The instance type of the RDS instance.\n" +
			"\n" +
			"`spec.forProvider.instanceClass` — Schema: workspace file `rds.yaml`"},
		{name: "fromFieldPath last segment, composite side", text: at("fromFieldPath: spec.parameters.storageGB", "fromFieldPath: spec.parameters.stor‸ageGB"), want: "[storageGB]\n" +
			"**storageGB** `integer` — required\n" +
			"\n" +
			"`spec.parameters.storageGB` of the composite resource"},
		{name: "fromFieldPath middle segment", text: at("fromFieldPath: spec.parameters.storageGB", "fromFieldPath: spec.para‸meters.storageGB"), want: "[parameters]\n" +
			"**parameters** `object` — required\n" +
			"\n" +
			"- requires: storageGB\n" +
			"\n" +
			"`spec.parameters` of the composite resource"},
		{name: "toFieldPath, composed side", text: at("toFieldPath: spec.forProvider.allocatedStorage", "toFieldPath: spec.forProvider.alloc‸atedStorage"), want: "[allocatedStorage]\n" +
			"**allocatedStorage** `number`\n" +
			"\n" +
			"The allocated storage in gibibytes. If max_allocated_storage is configured, this argument represents the initial storage allocation and differences from the configuration will be ignored automatically when Storage Autoscaling occurs. If replicate_source_db is set, the value is ignored during the creation of the instance.\n" +
			"\n" +
			"`spec.forProvider.allocatedStorage` of the composed resource"},
		{name: "ToCompositeFieldPath reads the base", text: at("fromFieldPath: status.atProvider.address", "fromFieldPath: status.atProvider.addr‸ess"), want: "[address]\n" +
			"**address** `string`\n" +
			"\n" +
			"The hostname of the RDS instance. See also endpoint and port.\n" +
			"\n" +
			"`status.atProvider.address` of the composed resource"},
		{name: "patchSet patch writes the first user's base", text: at("toFieldPath: spec.forProvider.region", "toFieldPath: spec.forProvider.reg‸ion"), want: "[region]\n" +
			"**region** `string` — required\n" +
			"\n" +
			"Region where this resource will be managed. Defaults to the Region set in the provider configuration.\n" +
			"Region is the region you'd like your resource to be created in.\n" +
			"\n" +
			"`spec.forProvider.region` of the composed resource"},
		{name: "patchSetName", text: at("patchSetName: common", "patchSetName: com‸mon"), want: "[common]\n" +
			"**patchSet** `common`: 1 patch, used by 1 resource\n" +
			"\n" +
			"- FromCompositeFieldPath `spec.parameters.region` → `spec.forProvider.region`\n" +
			""},
		{name: "fieldPath naming no field", text: at("toFieldPath: status.address", "toFieldPath: status.addr‸ess"), want: "[status.address]\n" +
			"**toFieldPath** `string`\n" +
			"\n" +
			"ToFieldPath is the path of the field on the resource whose value will\n" +
			"be changed with the result of transforms. Leave empty if you'd like to\n" +
			"propagate to the same path as fromFieldPath.\n" +
			"\n" +
			"`resources[0].patches[2].toFieldPath` — Schema: built-in functions"},
	}, hoverResult)
}

// replaceOnce replaces the first old in s; the test fails to mean
// anything if old is missing, so it panics.
func replaceOnce(s, old, new string) string {
	i := indexOrPanic(s, old)
	return s[:i] + new + s[i+len(old):]
}

func indexOrPanic(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	panic("no " + sub + " in the case's text")
}
