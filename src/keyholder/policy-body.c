// SPDX-License-Identifier: ISC
/*
 * policy-body.c - the JSON body of an inference request: parsed with
 * jansson, then each provider's tools and content checked against tables
 * (which tool types the agent itself runs, which make the provider reach
 * out); see policy-body.h and confine-profile(5), INJECTED ENDPOINTS.
 *
 * Runs in: confine-keyholder, outside the sandbox, on the agent's bytes.
 * MUST: parse with JSON_REJECT_DUPLICATES: a second "tools" the provider
 *       might read while confine read the first is refused outright.
 * MUST: refuse a tool type that is not on a table (allow-list), and a
 *       container nested deeper than KH_JSON_DEPTH_MAX.
 * MUST: put the agent's strings in a message only through kh_printable.
 */
#include "config.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "keyholder/policy-body.h"
#include "lib/util.h"

/* What a tool type is. */
enum tool_kind {
	TOOL_CLIENT,	/* run by the agent itself: allowed */
	TOOL_SEARCH,	/* server-side web search: only with web-search */
	TOOL_REFUSED,	/* server-side and reaching out: refused */
	TOOL_CLIENT_EXEC, /* allowed when the request says the agent runs
			   it ("execution": "client"), else refused */
};

/*
 * A tool type: '#' in a pattern matches one digit, so "web_search_########"
 * is every dated version of it and nothing else.
 */
struct tool_rule {
	const char	*pattern;
	enum tool_kind	 kind;
	const char	*because;	/* TOOL_REFUSED: why */
};

static const char FETCHES[] = "it makes the provider fetch URLs for the agent";
static const char RUNS[] = "it runs code on the provider's side, which may "
    "reach the network";
static const char MCP[] = "it makes the provider connect to remote MCP "
    "servers or connectors for the agent";
static const char STORES[] = "it reads the provider's stores of the user's "
    "files for the agent";
static const char UNKNOWN[] = "it is a server-side tool type not on "
    "confine's allow-list";

/* Anthropic Messages API: "tools"[].type; no type at all is a client tool. */
static const struct tool_rule anthropic_tools[] = {
	{ "custom", TOOL_CLIENT, NULL },
	{ "bash_########", TOOL_CLIENT, NULL },
	{ "text_editor_########", TOOL_CLIENT, NULL },
	{ "computer_########", TOOL_CLIENT, NULL },
	{ "memory_########", TOOL_CLIENT, NULL },
	{ "web_search_########", TOOL_SEARCH, NULL },
	{ "web_fetch_########", TOOL_REFUSED, FETCHES },
	{ "code_execution_########", TOOL_REFUSED, RUNS },
	{ "mcp_toolset", TOOL_REFUSED, MCP },
	{ NULL, TOOL_REFUSED, NULL },
};

/* OpenAI Responses API: "tools"[].type. */
static const struct tool_rule responses_tools[] = {
	{ "function", TOOL_CLIENT, NULL },
	{ "custom", TOOL_CLIENT, NULL },
	{ "local_shell", TOOL_CLIENT, NULL },
	{ "shell", TOOL_CLIENT, NULL },
	{ "apply_patch", TOOL_CLIENT, NULL },
	{ "computer_use_preview", TOOL_CLIENT, NULL },
	/* A group of tools: its own "tools" are judged by this table. */
	{ "namespace", TOOL_CLIENT, NULL },
	/* A search of the agent's own deferred tools, run by the agent
	 * (Codex); run by the provider it searches the user's connectors. */
	{ "tool_search", TOOL_CLIENT_EXEC, MCP },
	{ "web_search", TOOL_SEARCH, NULL },
	{ "web_search_preview", TOOL_SEARCH, NULL },
	{ "web_search_####_##_##", TOOL_SEARCH, NULL },
	{ "web_search_preview_####_##_##", TOOL_SEARCH, NULL },
	{ "mcp", TOOL_REFUSED, MCP },
	{ "code_interpreter", TOOL_REFUSED, RUNS },
	{ "file_search", TOOL_REFUSED, STORES },
	{ NULL, TOOL_REFUSED, NULL },
};

/* OpenAI Chat Completions: "tools"[].type. */
static const struct tool_rule chat_tools[] = {
	{ "function", TOOL_CLIENT, NULL },
	{ "custom", TOOL_CLIENT, NULL },
	{ NULL, TOOL_REFUSED, NULL },
};

/*
 * Gemini: each key of each "tools"[] object is a tool.  The API reads
 * proto3 JSON, which takes the snake_case spelling as well.
 */
static const struct tool_rule gemini_tools[] = {
	{ "functionDeclarations", TOOL_CLIENT, NULL },
	{ "function_declarations", TOOL_CLIENT, NULL },
	{ "googleSearch", TOOL_SEARCH, NULL },
	{ "google_search", TOOL_SEARCH, NULL },
	{ "googleSearchRetrieval", TOOL_SEARCH, NULL },
	{ "google_search_retrieval", TOOL_SEARCH, NULL },
	{ "urlContext", TOOL_REFUSED, FETCHES },
	{ "url_context", TOOL_REFUSED, FETCHES },
	{ "codeExecution", TOOL_REFUSED, RUNS },
	{ "code_execution", TOOL_REFUSED, RUNS },
	{ "mcpServers", TOOL_REFUSED, MCP },
	{ "mcp_servers", TOOL_REFUSED, MCP },
	{ "fileSearch", TOOL_REFUSED, STORES },
	{ "file_search", TOOL_REFUSED, STORES },
	{ NULL, TOOL_REFUSED, NULL },
};

static int
why(struct kh_why *ret, bool malformed, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
why(struct kh_why *ret, bool malformed, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	ret->malformed = malformed;
	ret->msg = s ? s : xstrdup("confine: request refused");
	return -1;
}

static bool
pattern_matches(const char *pat, const char *s)
{
	for (; *pat; pat++, s++) {
		if (*pat == '#' ? !(*s >= '0' && *s <= '9') : *pat != *s)
			return false;
	}
	return *s == '\0';
}

static const struct tool_rule *
tool_rule_find(const struct tool_rule *rules, const char *type)
{
	for (; rules->pattern; rules++)
		if (pattern_matches(rules->pattern, type))
			break;
	return rules;
}

/* Judge one tool type by its table and the web-search key. */
static int
tool_check(const struct tool_rule *rules, const struct kh_policy *p,
    const char *untrusted_type, struct kh_why *ret)
{
	const struct tool_rule *r = tool_rule_find(rules, untrusted_type);
	autofree char *name = NULL;

	if (r->kind == TOOL_CLIENT || (r->kind == TOOL_SEARCH && p->web_search))
		return 0;
	name = kh_printable(untrusted_type, 64);
	if (r->kind == TOOL_SEARCH)
		return why(ret, false, "confine: server-side tool '%s' "
		    "refused: web search sends the agent's text to a search "
		    "engine; web-search = yes allows it (confine-profile(5), "
		    "[credential])", name);
	return why(ret, false, "confine: server-side tool '%s' refused: %s "
	    "(confine-profile(5), [credential])", name,
	    r->because ? r->because : UNKNOWN);
}

static int
field_refused(const char *field, const char *because, struct kh_why *ret)
{
	return why(ret, false, "confine: field '%s' refused: %s "
	    "(confine-profile(5), [credential])", field, because);
}

static bool
depth_ok(json_t *v, int depth)
{
	const char *k;
	json_t *x;
	size_t i;

	if (!json_is_object(v) && !json_is_array(v))
		return true;
	if (depth > KH_JSON_DEPTH_MAX)
		return false;
	if (json_is_object(v)) {
		json_object_foreach(v, k, x)
			if (!depth_ok(x, depth + 1))
				return false;
	} else {
		json_array_foreach(v, i, x)
			if (!depth_ok(x, depth + 1))
				return false;
	}
	return true;
}

/* The first of two spellings present (Gemini's camelCase, snake_case). */
static json_t *
get2(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);

	return v ? v : (b ? json_object_get(o, b) : NULL);
}

/* "tools": absent, or an array of objects whose "type" the table judges. */
static int
typed_tools_check(json_t *body, const struct tool_rule *rules,
    const struct kh_policy *p, bool untyped_ok, struct kh_why *ret)
{
	json_t *tools = json_object_get(body, "tools"), *t, *type;
	size_t i;

	if (!tools || json_is_null(tools))
		return 0;
	if (!json_is_array(tools))
		return why(ret, true, "confine: \"tools\" is not an array");
	json_array_foreach(tools, i, t) {
		if (!json_is_object(t))
			return why(ret, true, "confine: a tool is not an "
			    "object");
		type = json_object_get(t, "type");
		if (!type && untyped_ok)
			continue;
		if (!json_is_string(type))
			return why(ret, true, "confine: a tool has no type");
		if (tool_rule_find(rules, json_string_value(type))->kind ==
		    TOOL_CLIENT_EXEC) {
			json_t *x = json_object_get(t, "execution");

			if (json_is_string(x) &&
			    streq(json_string_value(x), "client"))
				continue;
		}
		if (tool_check(rules, p, json_string_value(type), ret) < 0)
			return -1;
	}
	return 0;
}

static int
anthropic_check(json_t *body, const struct kh_policy *p, struct kh_why *ret)
{
	if (json_object_get(body, "mcp_servers"))
		return field_refused("mcp_servers", MCP, ret);
	if (json_object_get(body, "container"))
		return field_refused("container", RUNS, ret);
	return typed_tools_check(body, anthropic_tools, p, true, ret);
}

/* An image or file URL that is not inline data makes the provider fetch. */
static int
openai_url_check(json_t *v, const char *field, struct kh_why *ret)
{
	if (json_is_object(v))
		v = json_object_get(v, "url");
	if (!json_is_string(v) ||
	    strncmp(json_string_value(v), "data:", 5) == 0)
		return 0;
	return field_refused(field, FETCHES, ret);
}

/* One object of an OpenAI body: no URL to fetch, no stored file. */
static int
openai_object_check(json_t *c, struct kh_why *ret)
{
	json_t *f = json_object_get(c, "file");

	if (openai_url_check(json_object_get(c, "image_url"), "image_url",
	    ret) < 0 || openai_url_check(json_object_get(c, "file_url"),
	    "file_url", ret) < 0 || openai_url_check(json_object_get(f,
	    "file_url"), "file_url", ret) < 0)
		return -1;
	if (json_is_string(json_object_get(c, "file_id")) ||
	    json_is_string(json_object_get(f, "file_id")))
		return field_refused("file_id", STORES, ret);
	return 0;
}

/*
 * Keys under which a schema, not a request, is written: a property named
 * "tools" there is the agent's own data.
 */
static bool
schema_key(const char *k)
{
	static const char *const keys[] = { "parameters", "input_schema",
	    "schema", "json_schema", "format", "properties",
	    "parametersJsonSchema", "parameters_json_schema",
	    "responseSchema", "response_schema", "responseJsonSchema",
	    "response_json_schema", NULL };
	size_t i;

	for (i = 0; keys[i]; i++)
		if (streq(k, keys[i]))
			return true;
	return false;
}

/*
 * Every "tools" array anywhere in an OpenAI body, not only the top
 * level: an input item may carry tools of its own (Codex sends its tools
 * in an "additional_tools" item), and a "namespace" groups tools.  Each
 * is judged by the table; the depth is bounded by depth_ok() already.
 */
static int
nested_tools_check(json_t *v, const struct tool_rule *rules,
    const struct kh_policy *p, bool top, struct kh_why *ret)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (nested_tools_check(x, rules, p, false, ret) < 0)
				return -1;
		return 0;
	}
	if (!json_is_object(v))
		return 0;
	/* The top level's own "tools" is typed_tools_check()'s. */
	if (!top && json_object_get(v, "tools") &&
	    typed_tools_check(v, rules, p, false, ret) < 0)
		return -1;
	json_object_foreach(v, k, x)
		if (!schema_key(k) &&
		    nested_tools_check(x, rules, p, false, ret) < 0)
			return -1;
	return 0;
}

/*
 * The keys the checks read, in each provider's own spellings (Gemini's
 * proto3 JSON takes both camelCase and snake_case).  A key that differs
 * from one of these only in case, '_' or '-' is refused: a parser
 * upstream that folds them would read what confine did not.
 */
static const char *const anthropic_keys[] = { "tools", "mcp_servers",
    "container", "messages", "system", "content", "source", "type", NULL };
static const char *const openai_keys[] = { "tools", "type", "execution",
    "background", "web_search_options", "input", "output", "content",
    "messages", "prompt", "variables", "image_url", "file_url", "file_id",
    "file", "url", NULL };
static const char *const gemini_keys[] = { "tools", "contents", "parts",
    "fileData", "file_data", "systemInstruction", "system_instruction",
    "generateContentRequest", "generate_content_request",
    "functionResponse", "function_response", NULL };

/* s without case, '_' and '-', at most n bytes in out. */
static void
key_fold(const char *s, char *out, size_t n)
{
	size_t i = 0;

	for (; *s && i + 1 < n; s++)
		if (*s != '_' && *s != '-')
			out[i++] = (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
	out[i] = '\0';
}

static int
key_spelling_check(const char *const *keys, const char *untrusted_key,
    struct kh_why *ret)
{
	char a[48], b[48];
	size_t i;

	for (i = 0; keys[i]; i++)
		if (streq(keys[i], untrusted_key))
			return 0;
	key_fold(untrusted_key, a, sizeof(a));
	for (i = 0; keys[i]; i++) {
		key_fold(keys[i], b, sizeof(b));
		if (streq(a, b)) {
			autofree char *k = kh_printable(untrusted_key, 64);

			return why(ret, true, "confine: the key '%s' is '%s' "
			    "spelled otherwise", k, keys[i]);
		}
	}
	return 0;
}

static bool
type_is(json_t *o, const char *type)
{
	json_t *t = json_object_get(o, "type");

	return json_is_string(t) && streq(json_string_value(t), type);
}

/* One object of an Anthropic body: no source by URL or file id (the
   provider would fetch it, or read its file store), no container upload. */
static int
anthropic_object_check(json_t *b, struct kh_why *ret)
{
	json_t *src = json_object_get(b, "source");

	if (type_is(b, "container_upload"))
		return field_refused("container_upload", RUNS, ret);
	if (type_is(src, "url"))
		return field_refused("source.url", FETCHES, ret);
	if (type_is(src, "file"))
		return field_refused("source.file_id", STORES, ret);
	return 0;
}

/*
 * Is the value at key k of object o the agent's own data, which the
 * provider does not read as a request: a schema, a tool call's input
 * (Anthropic), a function call's arguments or response (Gemini's
 * Struct fields)?
 */
static bool
opaque_value(enum kh_body kind, json_t *o, const char *k)
{
	/* Maps of the agent's names to strings: nothing to fetch there. */
	if (schema_key(k) || streq(k, "metadata") || streq(k, "labels"))
		return true;
	if (kind == KH_BODY_ANTHROPIC)
		return streq(k, "input") && (type_is(o, "tool_use") ||
		    type_is(o, "server_tool_use"));
	if (kind == KH_BODY_GEMINI)
		return streq(k, "args") || streq(k, "response");
	return false;
}

/*
 * Every object of the body, wherever content nests (a document made of
 * blocks, a tool's result, a prompt's variables, a function's response
 * parts): no source the provider would fetch or read from the user's
 * stores, and no key the checks read spelled otherwise, but in an object
 * whose keys are the agent's names (named: a prompt's variables).  The
 * depth is bounded by depth_ok() already.
 */
static int
content_walk(enum kh_body kind, json_t *v, bool named, struct kh_why *ret)
{
	const char *const *keys = kind == KH_BODY_ANTHROPIC ? anthropic_keys :
	    kind == KH_BODY_GEMINI ? gemini_keys : openai_keys;
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (content_walk(kind, x, false, ret) < 0)
				return -1;
		return 0;
	}
	if (!json_is_object(v))
		return 0;
	json_object_foreach(v, k, x)
		if (!named && key_spelling_check(keys, k, ret) < 0)
			return -1;
	if (kind == KH_BODY_ANTHROPIC && anthropic_object_check(v, ret) < 0)
		return -1;
	if ((kind == KH_BODY_RESPONSES || kind == KH_BODY_CHAT) &&
	    openai_object_check(v, ret) < 0)
		return -1;
	if (kind == KH_BODY_GEMINI && get2(v, "fileData", "file_data"))
		return field_refused("fileData", FETCHES, ret);
	/* A prompt's variables: the agent names them, their values are
	   content. */
	json_object_foreach(v, k, x)
		if (!opaque_value(kind, v, k) && content_walk(kind, x,
		    !named && streq(k, "variables"), ret) < 0)
			return -1;
	return 0;
}

static int
responses_check(json_t *body, const struct kh_policy *p, struct kh_why *ret)
{
	if (json_is_true(json_object_get(body, "background")))
		return field_refused("background", "a background response "
		    "is kept and read back through routes confine refuses",
		    ret);
	if (typed_tools_check(body, responses_tools, p, false, ret) < 0 ||
	    nested_tools_check(body, responses_tools, p, true, ret) < 0)
		return -1;
	return 0;
}

static int
chat_check(json_t *body, const struct kh_policy *p, struct kh_why *ret)
{
	if (json_object_get(body, "web_search_options") && !p->web_search)
		return tool_check(responses_tools, p, "web_search", ret);
	if (typed_tools_check(body, chat_tools, p, false, ret) < 0 ||
	    nested_tools_check(body, chat_tools, p, true, ret) < 0)
		return -1;
	return 0;
}

static int
gemini_check(json_t *body, const struct kh_policy *p, struct kh_why *ret,
    bool nested)
{
	json_t *tools = json_object_get(body, "tools"), *t, *c, *inner;
	const char *k;
	size_t i;

	if (tools && !json_is_array(tools))
		return why(ret, true, "confine: \"tools\" is not an array");
	json_array_foreach(tools, i, t) {
		if (!json_is_object(t))
			return why(ret, true, "confine: a tool is not an "
			    "object");
		json_object_foreach(t, k, c)
			if (tool_check(gemini_tools, p, k, ret) < 0)
				return -1;
	}
	/* countTokens may carry a whole generateContent request. */
	inner = get2(body, "generateContentRequest",
	    "generate_content_request");
	if (inner && !nested)
		return gemini_check(inner, p, ret, true);
	if (inner)
		return why(ret, true, "confine: a nested request in a nested "
		    "request");
	return 0;
}

char *
kh_printable(const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1), i;
	char *out = xmalloc(n + 4);

	for (i = 0; i < n && i < max; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	strcpy(out + i, n > max ? "..." : "");
	return out;
}

int
kh_body_check(enum kh_body kind, const struct kh_policy *p,
    const char *untrusted_body, size_t untrusted_len, struct kh_why *ret)
{
	json_error_t err;
	json_t *body;
	int r = 0;

	if (kind == KH_BODY_EMPTY)
		return untrusted_len == 0 ? 0 :
		    why(ret, true, "confine: this request takes no body");
	/* Numbers as reals: the body goes on as it came, and an integer
	   too big for jansson's is no reason to refuse it. */
	body = json_loadb(untrusted_body, untrusted_len,
	    JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &err);
	if (!body)
		return why(ret, true, "confine: the body is not valid JSON "
		    "(or repeats a key): line %d column %d", err.line,
		    err.column);
	if (!json_is_object(body))
		r = why(ret, true, "confine: the body is not a JSON object");
	else if (!depth_ok(body, 1))
		r = why(ret, true, "confine: the body nests deeper than %d",
		    KH_JSON_DEPTH_MAX);
	else if (kind == KH_BODY_ANTHROPIC)
		r = anthropic_check(body, p, ret);
	else if (kind == KH_BODY_RESPONSES)
		r = responses_check(body, p, ret);
	else if (kind == KH_BODY_CHAT)
		r = chat_check(body, p, ret);
	else
		r = gemini_check(body, p, ret, false);
	if (r == 0)
		r = content_walk(kind, body, false, ret);
	json_decref(body);
	return r;
}
