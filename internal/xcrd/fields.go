package xcrd

// The fields Crossplane adds to XRs and claims, as JSON schema fragments.

const nameRef = `{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`

const labelSelector = `{"type":"object","required":["matchLabels"],"properties":{"matchLabels":{"type":"object","additionalProperties":{"type":"string"}}}}`

const updatePolicy = `{"type":"string","enum":["Automatic","Manual"]}`

const resourceRefs = `{"type":"array","x-kubernetes-list-type":"atomic","items":{"type":"object","required":["apiVersion","kind"],"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"name":{"type":"string"},"namespace":{"type":"string"}}}}`

// namespacedResourceRefs: a namespaced XR cannot reference composed
// resources in other namespaces.
const namespacedResourceRefs = `{"type":"array","x-kubernetes-list-type":"atomic","items":{"type":"object","required":["apiVersion","kind"],"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"name":{"type":"string"}}}}`

const publishTo = `{"type":"object","required":["name"],"properties":{
  "name":{"type":"string"},
  "configRef":{"type":"object","default":{"name":"default"},"properties":{"name":{"type":"string"}}},
  "metadata":{"type":"object","properties":{
    "labels":{"type":"object","additionalProperties":{"type":"string"}},
    "annotations":{"type":"object","additionalProperties":{"type":"string"}},
    "type":{"type":"string"}}}}}`

// legacyXRSpec: top-level spec fields of a v1-shaped XR.
const legacyXRSpec = `{
  "compositionRef":` + nameRef + `,
  "compositionSelector":` + labelSelector + `,
  "compositionRevisionRef":` + nameRef + `,
  "compositionRevisionSelector":` + labelSelector + `,
  "compositionUpdatePolicy":` + updatePolicy + `,
  "claimRef":{"type":"object","required":["apiVersion","kind","namespace","name"],"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"namespace":{"type":"string"},"name":{"type":"string"}}},
  "environmentConfigRefs":{"type":"array","items":{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"name":{"type":"string"}}}},
  "resourceRefs":` + resourceRefs + `,
  "publishConnectionDetailsTo":` + publishTo + `,
  "writeConnectionSecretToRef":{"type":"object","required":["name","namespace"],"properties":{"name":{"type":"string"},"namespace":{"type":"string"}}}
}`

// modernXRCrossplane: the spec.crossplane object of a v2 XR.
const modernXRCrossplane = `{
  "compositionRef":` + nameRef + `,
  "compositionSelector":` + labelSelector + `,
  "compositionRevisionRef":` + nameRef + `,
  "compositionRevisionSelector":` + labelSelector + `,
  "compositionUpdatePolicy":` + updatePolicy + `,
  "resourceRefs":` + resourceRefs + `
}`

// claimSpec: spec fields of a claim.
const claimSpec = `{
  "compositionRef":` + nameRef + `,
  "compositionSelector":` + labelSelector + `,
  "compositionRevisionRef":` + nameRef + `,
  "compositionRevisionSelector":` + labelSelector + `,
  "compositionUpdatePolicy":` + updatePolicy + `,
  "compositeDeletePolicy":{"type":"string","enum":["Background","Foreground"]},
  "resourceRef":{"type":"object","required":["apiVersion","kind","name"],"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"name":{"type":"string"}}},
  "publishConnectionDetailsTo":` + publishTo + `,
  "writeConnectionSecretToRef":` + nameRef + `
}`

// conditions: status.conditions of XRs and claims.
const conditions = `{"type":"array","description":"Conditions of the resource.","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["type"],"items":{"type":"object","required":["lastTransitionTime","reason","status","type"],"properties":{
    "lastTransitionTime":{"type":"string","format":"date-time"},"message":{"type":"string"},"reason":{"type":"string"},"status":{"type":"string"},"type":{"type":"string"},"observedGeneration":{"type":"integer","format":"int64"}}}}`

const connectionDetails = `{"type":"object","properties":{"lastPublishedTime":{"type":"string","format":"date-time"}}}`

// legacyStatus: status fields of legacy XRs and of claims.
const legacyStatus = `{
  "conditions":` + conditions + `,
  "claimConditionTypes":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
  "connectionDetails":` + connectionDetails + `
}`

// modernStatus: status fields of v2 XRs; Crossplane's own under status.crossplane.
const modernStatus = `{
  "conditions":` + conditions + `,
  "crossplane":{"type":"object","description":"Indicates how Crossplane is reconciling this composite resource","properties":{"connectionDetails":` + connectionDetails + `}}
}`
