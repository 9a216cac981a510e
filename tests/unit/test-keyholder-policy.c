// SPDX-License-Identifier: ISC
/*
 * test-keyholder-policy.c - the keyholder's policy (keyholder/policy.h) as
 * tables, per provider: every allowed route goes with exactly one
 * credential, the user's, whatever the agent sent (its key in each header
 * form and in ?key=); everything else (files, batches, uploads,
 * fine-tuning, admin, tricky targets) is refused in the provider's own
 * error format; each server-side tool is refused and each client tool
 * allowed; web search only with web_search; duplicate keys, depth and
 * non-object bodies.  Positive controls: the hostile request holds the
 * attacker's key before the hook runs.
 */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "keyholder/hook.h"
#include "keyholder/policy.h"
#include "lib/util.h"

#include "tap.h"

#define SECRET	"USER-SECRET-0123"
#define EVIL	"ATTACKER-KEY"

/* The agent's attempts to send its own credential, in every form. */
static const char *const evil_headers[] = {
	"Authorization", "Bearer " EVIL "-1",
	"X-Api-Key", EVIL "-2",
	"x-goog-api-key", EVIL "-3",
	"Cookie", "session=" EVIL "-4",
	"Proxy-Authorization", "Basic " EVIL "-5",
	"X-Auth-Token", EVIL "-6",
	"OpenAI-Api-Key", EVIL "-7",
	"User-Agent", "agent/1.0",
	"anthropic-version", "2023-06-01",
	NULL,
};

static struct kh_request *
req_new(const char *method, const char *target, const char *body)
{
	struct kh_request *r = xcalloc(1, sizeof(*r));

	r->method = xstrdup(method);
	r->target = xstrdup(target);
	r->untrusted_body = xstrdup(body ? body : "");
	r->body_len = strlen(r->untrusted_body);
	return r;
}

static void
req_free(struct kh_request *r)
{
	kh_request_clear(r);
	free(r);
}

static void
add_evil(struct kh_request *r)
{
	size_t i;

	for (i = 0; evil_headers[i]; i += 2)
		kh_header_add(r, evil_headers[i], evil_headers[i + 1]);
}

/* Does s appear anywhere in the request? */
static bool
req_has(const struct kh_request *r, const char *s)
{
	size_t i;

	if (strstr(r->method, s) || strstr(r->target, s) ||
	    memmem(r->untrusted_body, r->body_len, s, strlen(s)))
		return true;
	for (i = 0; i < r->nheaders; i++)
		if (strstr(r->headers[i].name, s) ||
		    strstr(r->headers[i].value, s))
			return true;
	return false;
}

static size_t
headers_with(const struct kh_request *r, const char *s)
{
	size_t i, n = 0;

	for (i = 0; i < r->nheaders; i++)
		n += strstr(r->headers[i].value, s) != NULL;
	return n;
}

static const char *
prov_name(enum kh_provider p)
{
	return p == KH_ANTHROPIC ? "anthropic" : p == KH_OPENAI ? "openai" :
	    "gemini";
}

/* The refusal is the provider's error JSON, with a "confine: " message. */
static bool
error_ok(enum kh_provider p, const struct kh_refusal *ref, int status)
{
	json_t *j = json_loadb(ref->body, ref->body_len, 0, NULL), *e;
	const char *msg = NULL;
	bool good = j != NULL && ref->status == status &&
	    streq(ref->content_type, "application/json") && ref->reason &&
	    strncmp(ref->reason, "confine: ", 9) == 0;
	size_t i;

	e = json_object_get(j, "error");
	if (good && p == KH_ANTHROPIC) {
		good = streq(json_string_value(json_object_get(j, "type")) ?:
		    "", "error") && streq(json_string_value(json_object_get(e,
		    "type")) ?: "", status == 403 ? "permission_error" :
		    "invalid_request_error");
	} else if (good && p == KH_OPENAI) {
		good = streq(json_string_value(json_object_get(e, "type")) ?:
		    "", "invalid_request_error") && json_is_null(
		    json_object_get(e, "param")) && streq(json_string_value(
		    json_object_get(e, "code")) ?: "", "confine_refused");
	} else if (good) {
		good = json_integer_value(json_object_get(e, "code")) ==
		    status && streq(json_string_value(json_object_get(e,
		    "status")) ?: "", status == 403 ? "PERMISSION_DENIED" :
		    "INVALID_ARGUMENT");
	}
	if (good)
		msg = json_string_value(json_object_get(e, "message"));
	good = good && msg && strncmp(msg, "confine: ", 9) == 0;
	for (i = 0; good && ref->reason[i]; i++)
		good = ref->reason[i] >= 0x20 && ref->reason[i] < 0x7f;
	if (!good)
		diag("status %d body %.*s reason %s", ref->status,
		    (int)ref->body_len, ref->body ? ref->body : "",
		    ref->reason ? ref->reason : "(none)");
	json_decref(j);
	return good;
}

static enum kh_verdict
run(const struct kh_policy *p, struct kh_request *r, struct kh_refusal *ref)
{
	memset(ref, 0, sizeof(*ref));
	return kh_policy_hook((void *)p, r, ref);
}

struct route_case {
	enum kh_provider	 provider;
	const char		*method;
	const char		*target;
	const char		*body;
	const char		*want_target;	/* with key= removed */
};

static const struct route_case allowed[] = {
	{ KH_ANTHROPIC, "POST", "/v1/messages", "{\"model\":\"m\"}",
	    "/v1/messages" },
	{ KH_ANTHROPIC, "POST", "/v1/messages?beta=true&key=" EVIL "-8",
	    "{}", "/v1/messages?beta=true" },
	{ KH_ANTHROPIC, "POST", "/v1/messages/count_tokens?key=" EVIL
	    "-8&beta=true", "{}", "/v1/messages/count_tokens?beta=true" },
	{ KH_ANTHROPIC, "GET", "/v1/models?limit=20&after_id=x", NULL,
	    "/v1/models?limit=20&after_id=x" },
	{ KH_ANTHROPIC, "GET", "/v1/models/claude-sonnet-4-5-20250929", NULL,
	    "/v1/models/claude-sonnet-4-5-20250929" },
	{ KH_OPENAI, "POST", "/v1/responses?key=" EVIL "-8",
	    "{\"model\":\"gpt-5\",\"input\":\"hi\"}", "/v1/responses" },
	{ KH_OPENAI, "POST", "/v1/chat/completions", "{\"messages\":[]}",
	    "/v1/chat/completions" },
	{ KH_OPENAI, "GET", "/v1/models", NULL, "/v1/models" },
	{ KH_OPENAI, "GET", "/v1/models/gpt-5.1-codex", NULL,
	    "/v1/models/gpt-5.1-codex" },
	{ KH_GEMINI, "POST", "/v1beta/models/gemini-2.5-pro:generateContent",
	    "{\"contents\":[]}",
	    "/v1beta/models/gemini-2.5-pro:generateContent" },
	{ KH_GEMINI, "POST", "/v1beta/models/gemini-2.5-pro:"
	    "streamGenerateContent?alt=sse&key=" EVIL "-8", "{}",
	    "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse" },
	{ KH_GEMINI, "POST", "/v1beta/models/gemini-2.5-flash:countTokens",
	    "{\"generateContentRequest\":{\"contents\":[]}}",
	    "/v1beta/models/gemini-2.5-flash:countTokens" },
	{ KH_GEMINI, "GET", "/v1beta/models?pageSize=50&pageToken=ab%3D",
	    NULL, "/v1beta/models?pageSize=50&pageToken=ab%3D" },
	{ KH_GEMINI, "GET", "/v1beta/models/gemini-2.5-pro", NULL,
	    "/v1beta/models/gemini-2.5-pro" },
};

/* The header the user's credential goes in, per provider (API key). */
static const char *
cred_header(enum kh_provider p)
{
	return p == KH_ANTHROPIC ? "x-api-key" : p == KH_OPENAI ?
	    "Authorization" : "x-goog-api-key";
}

static void
test_allowed(void)
{
	struct kh_policy pol = { .kind = KH_CRED_API_KEY, .secret = SECRET };
	struct kh_refusal ref;
	struct kh_request *r;
	const char *want;
	size_t i;

	for (i = 0; i < nitems(allowed); i++) {
		const struct route_case *c = &allowed[i];

		pol.provider = c->provider;
		r = req_new(c->method, c->target, c->body);
		add_evil(r);
		ok(req_has(r, EVIL), "control: %s %s holds the attacker's "
		    "key before the hook", c->method, c->target);
		if (!ok(run(&pol, r, &ref) == KH_FORWARD, "%s: %s %s goes",
		    prov_name(c->provider), c->method, c->target))
			diag("%s", ref.reason ? ref.reason : "");
		ok(!req_has(r, EVIL), "%s %s: no attacker key left",
		    c->method, c->target);
		is_str(r->target, c->want_target, "%s: the target upstream",
		    c->target);
		is_int(headers_with(r, SECRET), 1, "%s: one header holds the "
		    "user's secret", c->target);
		want = c->provider == KH_OPENAI ? "Bearer " SECRET : SECRET;
		is_str(kh_header_get(r, cred_header(c->provider)), want,
		    "%s: %s is the user's", c->target,
		    cred_header(c->provider));
		ok(kh_header_get(r, "User-Agent") &&
		    kh_header_get(r, "anthropic-version"), "%s: other headers "
		    "kept", c->target);
		kh_refusal_clear(&ref);
		req_free(r);
	}
}

struct refuse_case {
	enum kh_provider	 provider;
	const char		*method;
	const char		*target;
	int			 status;
};

static const struct refuse_case refused[] = {
	/* files, batches, uploads, fine-tuning, admin, other */
	{ KH_ANTHROPIC, "POST", "/v1/files", 403 },
	{ KH_ANTHROPIC, "GET", "/v1/files", 403 },
	{ KH_ANTHROPIC, "POST", "/v1/messages/batches", 403 },
	{ KH_ANTHROPIC, "GET", "/v1/organizations/api_keys", 403 },
	{ KH_ANTHROPIC, "POST", "/v1/complete", 403 },
	{ KH_ANTHROPIC, "GET", "/v1/messages", 403 },
	{ KH_ANTHROPIC, "CONNECT", "/v1/messages", 403 },
	{ KH_ANTHROPIC, "POST", "/v1/messages/", 403 },
	{ KH_ANTHROPIC, "POST", "/api/oauth/profile", 403 },
	{ KH_OPENAI, "POST", "/v1/files", 403 },
	{ KH_OPENAI, "POST", "/v1/uploads", 403 },
	{ KH_OPENAI, "POST", "/v1/batches", 403 },
	{ KH_OPENAI, "POST", "/v1/fine_tuning/jobs", 403 },
	{ KH_OPENAI, "GET", "/v1/organization/admin_api_keys", 403 },
	{ KH_OPENAI, "POST", "/v1/embeddings", 403 },
	{ KH_OPENAI, "GET", "/v1/responses/resp_1", 403 },
	{ KH_OPENAI, "POST", "/v1/vector_stores", 403 },
	{ KH_GEMINI, "POST", "/upload/v1beta/files", 403 },
	{ KH_GEMINI, "GET", "/v1beta/files", 403 },
	{ KH_GEMINI, "POST", "/v1beta/models/m:batchGenerateContent", 403 },
	{ KH_GEMINI, "POST", "/v1beta/tunedModels", 403 },
	{ KH_GEMINI, "POST", "/v1beta/cachedContents", 403 },
	{ KH_GEMINI, "POST", "/v1beta/models/:generateContent", 403 },
	{ KH_GEMINI, "POST", "/v1beta/models/m:generateContent?alt=sse",
	    400 },
	/* tricky targets */
	{ KH_ANTHROPIC, "POST", "/v1/messages/../files", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/files/../messages", 400 },
	{ KH_ANTHROPIC, "POST", "/v1//messages", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/./messages", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/%6dessages", 400 },
	{ KH_ANTHROPIC, "POST", "/v1%2fmessages", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/messages#x", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/messages?beta=true#x", 400 },
	{ KH_ANTHROPIC, "POST", "http://x/v1/messages", 400 },
	{ KH_ANTHROPIC, "POST", "*", 400 },
	{ KH_ANTHROPIC, "POST", "", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/messages?", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/messages?beta=false", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/messages?beta=true&beta=true", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/messages?beta=true&", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/messages?url=http://x", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/messages?beta", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/messages?%62eta=true", 400 },
	{ KH_ANTHROPIC, "POST", "/v1/messages ", 400 },
	{ KH_OPENAI, "POST", "/v1/responses?stream=true", 400 },
	{ KH_GEMINI, "GET", "/v1beta/models?pageToken=a%2", 400 },
	{ KH_GEMINI, "GET", "/v1beta/models?pageToken=a%zz", 400 },
};

static void
test_refused(void)
{
	struct kh_policy pol = { .kind = KH_CRED_API_KEY, .secret = SECRET };
	struct kh_refusal ref;
	struct kh_request *r;
	size_t i;

	for (i = 0; i < nitems(refused); i++) {
		const struct refuse_case *c = &refused[i];

		pol.provider = c->provider;
		r = req_new(c->method, c->target,
		    streq(c->method, "POST") ? "{}" : NULL);
		add_evil(r);
		ok(run(&pol, r, &ref) == KH_REFUSE && error_ok(c->provider,
		    &ref, c->status), "%s: %s '%s' refused with %d",
		    prov_name(c->provider), c->method, c->target, c->status);
		kh_refusal_clear(&ref);
		req_free(r);
	}
}

/* A header asking for another method than the request line's: refused
   on an allowed route, which goes without it (the control). */
static void
test_method_override(void)
{
	static const char *const names[] = { "X-HTTP-Method-Override",
	    "x-http-method", "X-Method-Override" };
	struct kh_policy pol = { .kind = KH_CRED_API_KEY, .secret = SECRET,
	    .provider = KH_GEMINI };
	struct kh_refusal ref;
	struct kh_request *r;
	size_t i;

	r = req_new("POST", "/v1beta/models/m:generateContent", "{}");
	ok(run(&pol, r, &ref) == KH_FORWARD, "gemini: the POST goes without "
	    "an override");
	kh_refusal_clear(&ref);
	req_free(r);
	for (i = 0; i < nitems(names); i++) {
		r = req_new("POST", "/v1beta/models/m:generateContent", "{}");
		kh_header_add(r, names[i], "DELETE");
		ok(run(&pol, r, &ref) == KH_REFUSE && error_ok(KH_GEMINI,
		    &ref, 400), "gemini: %s refused", names[i]);
		kh_refusal_clear(&ref);
		req_free(r);
	}
}

struct body_case {
	enum kh_provider	 provider;
	const char		*target;
	const char		*body;
	bool			 go;		/* without web_search */
	bool			 go_search;	/* with web_search */
};

#define A_MSG	"/v1/messages"
#define O_RESP	"/v1/responses"
#define O_CHAT	"/v1/chat/completions"
#define G_GEN	"/v1beta/models/gemini-2.5-pro:generateContent"
#define G_COUNT	"/v1beta/models/gemini-2.5-pro:countTokens"
#define A_TOOL(t) "{\"model\":\"m\",\"tools\":[{\"type\":\"" t "\"," \
	"\"name\":\"x\"}]}"
#define O_TOOL(t) "{\"model\":\"m\",\"tools\":[{\"type\":\"" t "\"}]}"
#define G_TOOL(t) "{\"contents\":[],\"tools\":[{\"" t "\":{}}]}"

static const struct body_case bodies[] = {
	/* Anthropic: client tools */
	{ KH_ANTHROPIC, A_MSG, "{\"tools\":[{\"name\":\"x\","
	    "\"input_schema\":{}}]}", true, true },
	{ KH_ANTHROPIC, A_MSG, A_TOOL("custom"), true, true },
	{ KH_ANTHROPIC, A_MSG, A_TOOL("bash_20250124"), true, true },
	{ KH_ANTHROPIC, A_MSG, A_TOOL("text_editor_20250728"), true, true },
	{ KH_ANTHROPIC, A_MSG, A_TOOL("computer_20250124"), true, true },
	{ KH_ANTHROPIC, A_MSG, A_TOOL("memory_20250818"), true, true },
	/* Anthropic: server tools */
	{ KH_ANTHROPIC, A_MSG, A_TOOL("web_search_20250305"), false, true },
	{ KH_ANTHROPIC, A_MSG, A_TOOL("web_fetch_20250910"), false, false },
	{ KH_ANTHROPIC, A_MSG, A_TOOL("code_execution_20250522"), false,
	    false },
	{ KH_ANTHROPIC, A_MSG, A_TOOL("code_execution_20250825"), false,
	    false },
	{ KH_ANTHROPIC, A_MSG, A_TOOL("mcp_toolset"), false, false },
	{ KH_ANTHROPIC, A_MSG, A_TOOL("tool_search_tool_regex_20251119"),
	    false, false },
	{ KH_ANTHROPIC, A_MSG, A_TOOL("bash_2025012"), false, false },
	{ KH_ANTHROPIC, A_MSG, A_TOOL("web_search_20250305x"), false, false },
	{ KH_ANTHROPIC, A_MSG, A_TOOL(""), false, false },
	{ KH_ANTHROPIC, "/v1/messages/count_tokens",
	    A_TOOL("web_fetch_20250910"), false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"tools\":[{\"type\":7}]}", false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"tools\":{}}", false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"tools\":[{\"name\":\"a\"},{\"type\":"
	    "\"bash_20250124\",\"name\":\"b\"},{\"type\":"
	    "\"web_fetch_20250910\",\"name\":\"f\"}]}", false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"tools\":null}", true, true },
	{ KH_ANTHROPIC, A_MSG, "{\"mcp_servers\":[{\"type\":\"url\","
	    "\"url\":\"https://evil.example/\"}]}", false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"container\":\"c\"}", false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"messages\":[{\"role\":\"user\","
	    "\"content\":[{\"type\":\"image\",\"source\":{\"type\":\"url\","
	    "\"url\":\"https://evil.example/x\"}}]}]}", false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"messages\":[{\"role\":\"user\","
	    "\"content\":[{\"type\":\"tool_result\",\"content\":[{\"type\":"
	    "\"document\",\"source\":{\"type\":\"file\",\"file_id\":\"f\"}}]}"
	    "]}]}", false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"messages\":[{\"role\":\"user\","
	    "\"content\":[{\"type\":\"image\",\"source\":{\"type\":"
	    "\"base64\",\"data\":\"AA==\"}}]}]}", true, true },
	/* OpenAI Responses */
	{ KH_OPENAI, O_RESP, O_TOOL("function"), true, true },
	{ KH_OPENAI, O_RESP, O_TOOL("custom"), true, true },
	{ KH_OPENAI, O_RESP, O_TOOL("local_shell"), true, true },
	{ KH_OPENAI, O_RESP, O_TOOL("shell"), true, true },
	{ KH_OPENAI, O_RESP, O_TOOL("apply_patch"), true, true },
	{ KH_OPENAI, O_RESP, O_TOOL("computer_use_preview"), true, true },
	{ KH_OPENAI, O_RESP, O_TOOL("web_search"), false, true },
	{ KH_OPENAI, O_RESP, O_TOOL("web_search_preview"), false, true },
	{ KH_OPENAI, O_RESP, O_TOOL("web_search_2025_08_26"), false, true },
	{ KH_OPENAI, O_RESP, O_TOOL("file_search"), false, false },
	{ KH_OPENAI, O_RESP, O_TOOL("code_interpreter"), false, false },
	{ KH_OPENAI, O_RESP, O_TOOL("mcp"), false, false },
	{ KH_OPENAI, O_RESP, O_TOOL("image_generation"), false, false },
	{ KH_OPENAI, O_RESP, "{\"tools\":[{\"name\":\"x\"}]}", false, false },
	/* Tools carried by an input item, and grouped in a namespace: the
	 * same table, wherever they are. */
	{ KH_OPENAI, O_RESP, "{\"input\":[{\"type\":\"additional_tools\","
	    "\"tools\":[{\"type\":\"mcp\",\"server_label\":\"x\","
	    "\"server_url\":\"https://evil.example/mcp\"}]}]}", false, false },
	{ KH_OPENAI, O_RESP, "{\"input\":[{\"type\":\"additional_tools\","
	    "\"tools\":[{\"type\":\"namespace\",\"name\":\"n\",\"tools\":"
	    "[{\"type\":\"code_interpreter\"}]}]}]}", false, false },
	{ KH_OPENAI, O_RESP, "{\"input\":[{\"type\":\"additional_tools\","
	    "\"tools\":[{\"type\":\"namespace\",\"name\":\"n\",\"tools\":"
	    "[{\"type\":\"function\",\"name\":\"f\",\"parameters\":"
	    "{\"type\":\"object\",\"properties\":{\"tools\":{\"type\":"
	    "\"array\"}}}},{\"type\":\"custom\",\"name\":\"c\"}]}]}]}",
	    true, true },
	{ KH_OPENAI, O_RESP, "{\"tools\":[{\"type\":\"namespace\","
	    "\"name\":\"n\",\"tools\":[{\"type\":\"web_search\"}]}]}",
	    false, true },
	{ KH_OPENAI, O_RESP, "{\"input\":[{\"type\":\"message\","
	    "\"content\":[{\"type\":\"input_text\",\"text\":\"x\","
	    "\"tools\":[{\"type\":\"file_search\"}]}]}]}", false, false },
	{ KH_OPENAI, O_CHAT, "{\"messages\":[{\"role\":\"user\","
	    "\"content\":\"x\",\"tools\":[{\"type\":\"mcp\"}]}]}", false,
	    false },
	/* tool_search: the agent's own deferred tools, run by the agent. */
	{ KH_OPENAI, O_RESP, "{\"tools\":[{\"type\":\"tool_search\","
	    "\"execution\":\"client\"}]}", true, true },
	{ KH_OPENAI, O_RESP, "{\"tools\":[{\"type\":\"tool_search\"}]}",
	    false, false },
	{ KH_OPENAI, O_RESP, "{\"tools\":[{\"type\":\"tool_search\","
	    "\"execution\":\"server\"}]}", false, false },
	{ KH_OPENAI, O_RESP, "{\"tools\":[{\"type\":\"tool_search\","
	    "\"execution\":[\"client\"]}]}", false, false },
	{ KH_OPENAI, O_RESP, "{\"background\":true}", false, false },
	{ KH_OPENAI, O_RESP, "{\"background\":false}", true, true },
	{ KH_OPENAI, O_RESP, "{\"input\":[{\"role\":\"user\",\"content\":["
	    "{\"type\":\"input_image\",\"image_url\":\"https://evil.example/"
	    "\"}]}]}", false, false },
	{ KH_OPENAI, O_RESP, "{\"input\":[{\"role\":\"user\",\"content\":["
	    "{\"type\":\"input_image\",\"image_url\":\"data:image/png;base64,"
	    "AA\"}]}]}", true, true },
	{ KH_OPENAI, O_RESP, "{\"input\":[{\"role\":\"user\",\"content\":["
	    "{\"type\":\"input_file\",\"file_id\":\"file-1\"}]}]}", false,
	    false },
	/* OpenAI Chat Completions */
	{ KH_OPENAI, O_CHAT, O_TOOL("function"), true, true },
	{ KH_OPENAI, O_CHAT, O_TOOL("retrieval"), false, false },
	{ KH_OPENAI, O_CHAT, "{\"web_search_options\":{}}", false, true },
	{ KH_OPENAI, O_CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":"
	    "[{\"type\":\"image_url\",\"image_url\":{\"url\":\"http://evil."
	    "example/\"}}]}]}", false, false },
	/* Gemini */
	{ KH_GEMINI, G_GEN, G_TOOL("functionDeclarations"), true, true },
	{ KH_GEMINI, G_GEN, G_TOOL("function_declarations"), true, true },
	{ KH_GEMINI, G_GEN, G_TOOL("googleSearch"), false, true },
	{ KH_GEMINI, G_GEN, G_TOOL("google_search_retrieval"), false, true },
	{ KH_GEMINI, G_GEN, G_TOOL("urlContext"), false, false },
	{ KH_GEMINI, G_GEN, G_TOOL("url_context"), false, false },
	{ KH_GEMINI, G_GEN, G_TOOL("codeExecution"), false, false },
	{ KH_GEMINI, G_GEN, G_TOOL("mcpServers"), false, false },
	{ KH_GEMINI, G_GEN, G_TOOL("fileSearch"), false, false },
	{ KH_GEMINI, G_GEN, G_TOOL("googleMaps"), false, false },
	{ KH_GEMINI, G_GEN, G_TOOL("computerUse"), false, false },
	{ KH_GEMINI, G_COUNT, "{\"generateContentRequest\":"
	    G_TOOL("urlContext") "}", false, false },
	{ KH_GEMINI, G_COUNT, "{\"generate_content_request\":"
	    G_TOOL("code_execution") "}", false, false },
	{ KH_GEMINI, G_GEN, "{\"tools\":[{\"functionDeclarations\":[],"
	    "\"googleSearch\":{}}]}", false, true },
	{ KH_GEMINI, G_GEN, "{\"contents\":[{\"parts\":[{\"fileData\":{"
	    "\"fileUri\":\"https://evil.example/\"}}]}]}", false, false },
	{ KH_GEMINI, G_GEN, "{\"contents\":[{\"parts\":[{\"file_data\":{"
	    "\"file_uri\":\"https://evil.example/\"}}]}]}", false, false },
	/* A source to fetch wherever content may nest: a document made of
	 * content blocks, a prompt's variables, a function's response
	 * parts.  The same shapes inline go; a tool call's own arguments are
	 * the agent's data, not read by the provider. */
	{ KH_ANTHROPIC, A_MSG, "{\"messages\":[{\"role\":\"user\","
	    "\"content\":[{\"type\":\"document\",\"source\":{\"type\":"
	    "\"content\",\"content\":[{\"type\":\"image\",\"source\":{"
	    "\"type\":\"url\",\"url\":\"https://evil.example/x\"}}]}}]}]}",
	    false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"messages\":[{\"role\":\"user\","
	    "\"content\":[{\"type\":\"document\",\"source\":{\"type\":"
	    "\"content\",\"content\":[{\"type\":\"image\",\"source\":{"
	    "\"type\":\"base64\",\"data\":\"AA==\"}}]}}]}]}", true, true },
	{ KH_ANTHROPIC, A_MSG, "{\"system\":[{\"type\":\"text\",\"text\":"
	    "\"x\",\"citations\":[{\"source\":{\"type\":\"url\",\"url\":"
	    "\"https://evil.example/\"}}]}]}", false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"messages\":[{\"role\":\"assistant\","
	    "\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"w\","
	    "\"input\":{\"source\":{\"type\":\"url\",\"url\":\"u\"}}}]}]}",
	    true, true },
	{ KH_OPENAI, O_RESP, "{\"prompt\":{\"id\":\"p\",\"variables\":{"
	    "\"v\":{\"type\":\"input_image\",\"image_url\":"
	    "\"https://evil.example/\"}}}}", false, false },
	{ KH_OPENAI, O_RESP, "{\"prompt\":{\"id\":\"p\",\"variables\":{"
	    "\"v\":{\"type\":\"input_file\",\"file_url\":"
	    "\"https://evil.example/\"}}}}", false, false },
	{ KH_OPENAI, O_RESP, "{\"prompt\":{\"id\":\"p\",\"variables\":{"
	    "\"v\":{\"type\":\"input_image\",\"image_url\":"
	    "\"data:image/png;base64,AA\"}}}}", true, true },
	{ KH_GEMINI, G_GEN, "{\"contents\":[{\"role\":\"user\",\"parts\":[{"
	    "\"functionResponse\":{\"name\":\"f\",\"response\":{},\"parts\":"
	    "[{\"fileData\":{\"mimeType\":\"image/png\",\"fileUri\":"
	    "\"https://evil.example/\"}}]}}]}]}", false, false },
	{ KH_GEMINI, G_GEN, "{\"contents\":[{\"role\":\"user\",\"parts\":[{"
	    "\"functionResponse\":{\"name\":\"f\",\"response\":{},\"parts\":"
	    "[{\"inlineData\":{\"mimeType\":\"image/png\",\"data\":"
	    "\"AA==\"}}]}}]}]}", true, true },
	{ KH_GEMINI, G_GEN, "{\"contents\":[{\"role\":\"model\",\"parts\":[{"
	    "\"functionCall\":{\"name\":\"f\",\"args\":{\"fileData\":{"
	    "\"fileUri\":\"u\"}}}}]}]}", true, true },
	/* A key the policy reads, spelled otherwise (case, '_'): a parser
	 * upstream might take it for the key; refused, not guessed. */
	{ KH_ANTHROPIC, A_MSG, "{\"Tools\":[{\"type\":\"web_fetch_20250910\","
	    "\"name\":\"f\"}]}", false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"mcpServers\":[{\"type\":\"url\","
	    "\"url\":\"https://evil.example/\"}]}", false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"messages\":[{\"role\":\"user\","
	    "\"content\":[{\"type\":\"image\",\"Source\":{\"type\":\"url\","
	    "\"url\":\"https://evil.example/x\"}}]}]}", false, false },
	{ KH_OPENAI, O_RESP, "{\"TOOLS\":[{\"type\":\"mcp\"}]}", false,
	    false },
	{ KH_OPENAI, O_CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":"
	    "[{\"type\":\"image_url\",\"imageUrl\":{\"url\":\"http://evil."
	    "example/\"}}]}]}", false, false },
	{ KH_GEMINI, G_GEN, "{\"contents\":[{\"parts\":[{\"FileData\":{"
	    "\"fileUri\":\"https://evil.example/\"}}]}]}", false, false },
	{ KH_GEMINI, G_GEN, "{\"tOOLS\":[{\"urlContext\":{}}]}", false,
	    false },
	{ KH_GEMINI, G_GEN, "{\"tools\":[{\"functionDeclarations\":[{"
	    "\"name\":\"f\",\"parametersJsonSchema\":{\"$defs\":{"
	    "\"Tools\":{},\"FileData\":{}}}}]}]}", true, true },
	/* The agent's own names: a prompt's variables, metadata, labels. */
	{ KH_OPENAI, O_RESP, "{\"prompt\":{\"id\":\"p\",\"variables\":{"
	    "\"URL\":\"x\",\"Type\":{\"type\":\"input_text\",\"text\":"
	    "\"y\"}}},\"metadata\":{\"Tools\":\"z\"}}", true, true },
	{ KH_OPENAI, O_RESP, "{\"prompt\":{\"id\":\"p\",\"variables\":{"
	    "\"URL\":{\"type\":\"input_image\",\"Image_Url\":\"x\"}}}}",
	    false, false },
	{ KH_GEMINI, G_GEN, "{\"contents\":[],\"labels\":{\"Parts\":"
	    "\"a\"}}", true, true },
	/* Both of Gemini's own spellings, and a schema's property named
	 * like a key, go. */
	{ KH_GEMINI, G_GEN, "{\"system_instruction\":{\"parts\":[{\"text\":"
	    "\"x\"}]},\"contents\":[{\"parts\":[{\"text\":\"y\"}]}]}", true,
	    true },
	{ KH_ANTHROPIC, A_MSG, "{\"tools\":[{\"name\":\"x\",\"input_schema\":"
	    "{\"type\":\"object\",\"properties\":{\"Tools\":{},\"Source\":"
	    "{}}}}]}", true, true },
	/* duplicate keys, the second hostile; non-objects; bad JSON */
	{ KH_ANTHROPIC, A_MSG, "{\"tools\":[],\"tools\":[{\"type\":"
	    "\"web_fetch_20250910\",\"name\":\"f\"}]}", false, false },
	{ KH_OPENAI, O_RESP, "{\"a\":{\"b\":1,\"b\":2}}", false, false },
	{ KH_ANTHROPIC, A_MSG, "[]", false, false },
	{ KH_ANTHROPIC, A_MSG, "\"x\"", false, false },
	{ KH_ANTHROPIC, A_MSG, "1", false, false },
	{ KH_ANTHROPIC, A_MSG, "", false, false },
	{ KH_ANTHROPIC, A_MSG, "{} {}", false, false },
	{ KH_ANTHROPIC, A_MSG, "{\"a\":\"\\u0000\"}", false, false },
	{ KH_GEMINI, G_GEN, "{\"a\":1,}", false, false },
	/* an integer too big for jansson's is no reason to refuse */
	{ KH_ANTHROPIC, A_MSG, "{\"n\":123456789012345678901234567890}",
	    true, true },
};

static void
test_bodies(void)
{
	struct kh_policy pol = { .kind = KH_CRED_API_KEY, .secret = SECRET };
	struct kh_refusal ref;
	struct kh_request *r;
	size_t i;
	int search;

	for (i = 0; i < nitems(bodies); i++) {
		const struct body_case *c = &bodies[i];

		pol.provider = c->provider;
		for (search = 0; search < 2; search++) {
			bool want = search ? c->go_search : c->go;
			enum kh_verdict v;

			pol.web_search = search;
			r = req_new("POST", c->target, c->body);
			v = run(&pol, r, &ref);
			ok(want ? v == KH_FORWARD : v == KH_REFUSE &&
			    error_ok(c->provider, &ref, ref.status),
			    "%s%s: %s %s", prov_name(c->provider),
			    search ? " (web-search)" : "", want ? "goes" :
			    "refused", c->body);
			if (v == KH_REFUSE && want)
				diag("%s", ref.reason);
			kh_refusal_clear(&ref);
			req_free(r);
		}
	}
}

/* {"a": [[[...]]]}: the object, then n - 1 arrays. */
static char *
nested(int n)
{
	char *s = xmalloc(2 * (size_t)n + 16), *p = s;
	int i;

	p += sprintf(p, "{\"a\":");
	for (i = 1; i < n; i++)
		*p++ = '[';
	for (i = 1; i < n; i++)
		*p++ = ']';
	strcpy(p, "}");
	return s;
}

static void
test_depth_and_get(void)
{
	struct kh_policy pol = { KH_ANTHROPIC, KH_CRED_API_KEY, SECRET,
	    false };
	struct kh_refusal ref;
	struct kh_request *r;
	autofree char *d64 = nested(64), *d65 = nested(65);

	r = req_new("POST", "/v1/messages", d64);
	ok(run(&pol, r, &ref) == KH_FORWARD, "depth 64 goes");
	kh_refusal_clear(&ref);
	req_free(r);
	r = req_new("POST", "/v1/messages", d65);
	ok(run(&pol, r, &ref) == KH_REFUSE && error_ok(KH_ANTHROPIC, &ref,
	    400), "depth 65 refused");
	kh_refusal_clear(&ref);
	req_free(r);
	r = req_new("GET", "/v1/models", "{}");
	ok(run(&pol, r, &ref) == KH_REFUSE && error_ok(KH_ANTHROPIC, &ref,
	    400), "a GET with a body refused");
	kh_refusal_clear(&ref);
	req_free(r);
}

/* The refusal is JSON even when the tool type holds quotes and controls. */
static void
test_hostile_names(void)
{
	static const char body[] = "{\"tools\":[{\"type\":\"a\\\"b\\u0001c"
	    "\\\\d\\n}\",\"name\":\"x\"}]}";
	enum kh_provider p;
	struct kh_refusal ref;
	struct kh_request *r;

	for (p = KH_ANTHROPIC; p <= KH_OPENAI; p++) {
		struct kh_policy pol = { p, KH_CRED_API_KEY, SECRET, false };

		r = req_new("POST", p == KH_ANTHROPIC ? A_MSG : O_RESP, body);
		ok(run(&pol, r, &ref) == KH_REFUSE && error_ok(p, &ref, 403),
		    "%s: a hostile tool type gives valid JSON",
		    prov_name(p));
		ok(ref.reason && strstr(ref.reason, "'a\"b?c\\d?}'"),
		    "the reason names it, printable: %s", ref.reason);
		kh_refusal_clear(&ref);
		req_free(r);
	}
}

static void
test_bearer(void)
{
	struct kh_policy pol = { KH_ANTHROPIC, KH_CRED_BEARER, SECRET,
	    false };
	struct kh_refusal ref;
	struct kh_request *r;

	r = req_new("POST", "/v1/messages?beta=true", "{}");
	add_evil(r);
	kh_header_add(r, "anthropic-beta", "claude-code-20250219, "
	    "fine-grained-tool-streaming-2025-05-14");
	kh_header_add(r, "Anthropic-Beta", "oauth-2025-04-20");
	ok(run(&pol, r, &ref) == KH_FORWARD, "anthropic bearer goes");
	ok(!req_has(r, EVIL), "anthropic bearer: no attacker key left");
	is_str(kh_header_get(r, "authorization"), "Bearer " SECRET,
	    "anthropic bearer: Authorization is the user's");
	ok(!kh_header_get(r, "x-api-key"), "anthropic bearer: no x-api-key");
	is_str(kh_header_get(r, "anthropic-beta"), "claude-code-20250219,"
	    "fine-grained-tool-streaming-2025-05-14,oauth-2025-04-20",
	    "anthropic bearer: the beta flags merged, oauth once");
	is_int(kh_header_remove(r, "anthropic-beta"), 1, "one anthropic-beta");
	kh_refusal_clear(&ref);
	req_free(r);

	r = req_new("POST", "/v1/messages", "{}");
	ok(run(&pol, r, &ref) == KH_FORWARD, "anthropic bearer without betas");
	is_str(kh_header_get(r, "anthropic-beta"), "oauth-2025-04-20",
	    "the oauth flag added");
	kh_refusal_clear(&ref);
	req_free(r);

	r = req_new("POST", "/v1/messages", "{}");
	kh_header_add(r, "anthropic-beta", "a\"b");
	ok(run(&pol, r, &ref) == KH_REFUSE, "a beta flag not plain refused");
	kh_refusal_clear(&ref);
	req_free(r);

	pol.provider = KH_GEMINI;
	r = req_new("GET", "/v1beta/models?key=" EVIL, NULL);
	add_evil(r);
	ok(run(&pol, r, &ref) == KH_FORWARD && !req_has(r, EVIL) &&
	    headers_with(r, SECRET) == 1 && streq(kh_header_get(r,
	    "Authorization") ?: "", "Bearer " SECRET) &&
	    !kh_header_get(r, "x-goog-api-key"), "gemini bearer: "
	    "Authorization only");
	kh_refusal_clear(&ref);
	req_free(r);

	pol.secret = "bad\r\nX-Evil: 1";
	r = req_new("GET", "/v1beta/models", NULL);
	ok(run(&pol, r, &ref) == KH_REFUSE, "a secret that cannot go in a "
	    "header: refused");
	kh_refusal_clear(&ref);
	req_free(r);
}

static void
test_names(void)
{
	is_int(kh_provider_from_name("anthropic"), KH_ANTHROPIC, "anthropic");
	is_int(kh_provider_from_name("openai"), KH_OPENAI, "openai");
	is_int(kh_provider_from_name("gemini"), KH_GEMINI, "gemini");
	is_int(kh_provider_from_name("Gemini"), -1, "case matters");
	is_int(kh_provider_from_name(""), -1, "empty");
	is_int(kh_provider_from_name(NULL), -1, "NULL");
}

int
main(void)
{
	test_allowed();
	test_refused();
	test_method_override();
	test_bodies();
	test_depth_and_get();
	test_hostile_names();
	test_bearer();
	test_names();
	return done();
}
