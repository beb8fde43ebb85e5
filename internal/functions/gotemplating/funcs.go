// This file lists the template functions function-go-templating offers: sprig
// v3.3.0's and its own.

package gotemplating

import "sort"

// sprigFunctions are the names of the functions of
// github.com/Masterminds/sprig/v3 v3.3.0 (the version
// function-go-templating builds with), less env and expandenv, which the
// function removes.
var sprigFunctions = []string{
	"abbrev", "abbrevboth", "add", "add1", "add1f", "addf", "adler32sum", "ago",
	"all", "any", "append", "atoi", "b32dec", "b32enc", "b64dec", "b64enc",
	"base", "bcrypt", "biggest", "buildCustomCert", "camelcase", "cat", "ceil", "chunk",
	"clean", "coalesce", "compact", "concat", "contains", "date", "dateInZone", "dateModify",
	"date_in_zone", "date_modify", "decryptAES", "deepCopy", "deepEqual", "default", "derivePassword", "dict",
	"dig", "dir", "div", "divf", "duration", "durationRound", "empty", "encryptAES",
	"ext", "fail", "first", "float64", "floor", "fromJson", "genCA", "genCAWithKey",
	"genPrivateKey", "genSelfSignedCert", "genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey", "get", "getHostByName", "has",
	"hasKey", "hasPrefix", "hasSuffix", "hello", "htmlDate", "htmlDateInZone", "htpasswd", "indent",
	"initial", "initials", "int", "int64", "isAbs", "join", "kebabcase", "keys",
	"kindIs", "kindOf", "last", "list", "lower", "max", "maxf", "merge",
	"mergeOverwrite", "min", "minf", "mod", "mul", "mulf", "mustAppend", "mustChunk",
	"mustCompact", "mustDateModify", "mustDeepCopy", "mustFirst", "mustFromJson", "mustHas", "mustInitial", "mustLast",
	"mustMerge", "mustMergeOverwrite", "mustPrepend", "mustPush", "mustRegexFind", "mustRegexFindAll", "mustRegexMatch", "mustRegexReplaceAll", "mustRegexReplaceAllLiteral",
	"mustRegexSplit", "mustRest", "mustReverse", "mustSlice", "mustToDate", "mustToJson", "mustToPrettyJson", "mustToRawJson",
	"mustUniq", "mustWithout", "must_date_modify", "nindent", "nospace", "now", "omit", "osBase",
	"osClean", "osDir", "osExt", "osIsAbs", "pick", "pluck", "plural", "prepend", "push",
	"quote", "randAlpha", "randAlphaNum", "randAscii", "randBytes", "randInt", "randNumeric", "regexFind",
	"regexFindAll", "regexMatch", "regexQuoteMeta", "regexReplaceAll", "regexReplaceAllLiteral", "regexSplit", "repeat", "replace",
	"rest", "reverse", "round", "semver", "semverCompare", "seq", "set", "sha1sum",
	"sha256sum", "sha512sum", "shuffle", "slice", "snakecase", "sortAlpha", "split", "splitList",
	"splitn", "squote", "sub", "subf", "substr", "swapcase", "ternary", "title",
	"toDate", "toDecimal", "toJson", "toPrettyJson", "toRawJson", "toString", "toStrings", "trim",
	"trimAll", "trimPrefix", "trimSuffix", "trimall", "trunc", "tuple", "typeIs", "typeIsLike",
	"typeOf", "uniq", "unixEpoch", "unset", "until", "untilStep", "untitle", "upper",
	"urlJoin", "urlParse", "uuidv4", "values", "without", "wrap", "wrapWith",
}

// ownFunctions are function-go-templating's own template functions
// (function_maps.go), include among them.
var ownFunctions = []string{
	"randomChoice", "toYaml", "fromYaml", "getResourceCondition", "setResourceNameAnnotation",
	"getComposedResource", "getCompositeResource", "getComposedConnectionDetails",
	"getExtraResources", "getExtraResourcesFromContext", "getCredentialData", "include",
}

// FunctionNames are the names every release's templates may call (sprig's
// and the function's own, include among them), sorted.
func FunctionNames() []string {
	out := append(append([]string{}, sprigFunctions...), ownFunctions...)
	sort.Strings(out)
	return out
}
