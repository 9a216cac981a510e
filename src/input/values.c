// SPDX-License-Identifier: ISC
/*
 * input/values.c - checks of profile and option values.  Pure.
 *
 * Strict on purpose: a value confine would have to guess about (a relative
 * path, a host with a trailing dot, a port of 0) is an error, never a
 * silent reinterpretation.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "input/values.h"
#include "lib/util.h"

const char *const syntax_quadrants[] = { "sealed", "offline", "online",
	"trusted", NULL };
const char *const syntax_net_modes[] = { "none", "proxy", "host", NULL };
const char *const syntax_backends[] = { "auto", "native", "bwrap",
	"landlock", NULL };

const char *const syntax_providers[] = { "anthropic", "openai", "gemini",
	NULL };
const char *const syntax_cred_kinds[] = { "api-key", "bearer", "login",
	NULL };

int
syntax_bool(const char *s, bool *ret, char **why)
{
	if (streq(s, "yes") || streq(s, "true")) {
		*ret = true;
		return 0;
	}
	if (streq(s, "no") || streq(s, "false")) {
		*ret = false;
		return 0;
	}
	*why = xasprintf("expected yes or no, got '%s'", s);
	return -1;
}

int
syntax_word_index(const char *s, const char *const *words)
{
	int i;

	for (i = 0; words[i]; i++)
		if (streq(s, words[i]))
			return i;
	return -1;
}

int
syntax_word(const char *s, const char *const *words, char **why)
{
	size_t i, n = 0;
	char *list;

	if (syntax_word_index(s, words) >= 0)
		return 0;
	for (i = 0; words[i]; i++)
		n += strlen(words[i]) + 2;
	list = xcalloc(1, n + 1);
	for (i = 0; words[i]; i++) {
		if (i)
			strcat(list, ", ");
		strcat(list, words[i]);
	}
	*why = xasprintf("expected one of %s, got '%s'", list, s);
	free(list);
	return -1;
}

static bool
printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

int
syntax_path(const char *s, char **why)
{
	autofree char *abs = NULL;

	if (!printable(s)) {
		*why = xasprintf("path has a control character");
		return -1;
	}
	if (streq(s, "~"))
		return 0;
	if (strncmp(s, "~/", 2) == 0 && s[2] != '\0')
		abs = xstrdup(s + 1);
	else
		abs = xstrdup(s);
	if (abs[0] != '/') {
		*why = xasprintf("'%s' is not an absolute path (start it with "
		    "/ or ~/)", s);
		return -1;
	}
	if (!path_is_normal(abs)) {
		*why = xasprintf("'%s' is not a normal path (no '.', '..', "
		    "'//' or trailing '/')", s);
		return -1;
	}
	return 0;
}

int
syntax_home_entry(const char *s, char **why)
{
	autofree char *abs = NULL;

	if (s[0] == '/' || s[0] == '~' || s[0] == '\0') {
		*why = xasprintf("'%s': name an entry of the home directory, "
		    "relative to it (like .gitconfig)", s);
		return -1;
	}
	abs = xasprintf("/%s", s);
	if (!printable(s) || !path_is_normal(abs)) {
		*why = xasprintf("'%s' is not a normal relative path", s);
		return -1;
	}
	return 0;
}

static bool
dns_name(const char *s, size_t n)
{
	size_t label = 0, i;

	if (n == 0 || n > 253)
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '.') {
			if (label == 0 || s[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!(islower((unsigned char)c) || isdigit((unsigned char)c) ||
		    c == '-'))
			return false;
		if (label == 0 && c == '-')
			return false;
		if (++label > 63)
			return false;
	}
	return label > 0 && s[n - 1] != '-';
}

/*
 * inet_aton(3) takes "2130706433", "0x7f.1", "017.0.0.1" and "1.2.3" as
 * addresses; a resolver may too.  Only the dotted quad is an address here,
 * and a name that some parser would read as an address is refused.
 */
static bool
legacy_ipv4(const char *s, size_t n)
{
	char buf[64];
	struct in_addr a;

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET, buf, &a) == 1)
		return false;
	return inet_aton(buf, &a) != 0 || strspn(buf, "0123456789.") == n;
}

static bool
port_ok(const char *p)
{
	char *end;
	long v;

	size_t i;

	if (*p == '\0' || *p == '0' || strlen(p) > 5)
		return false;
	for (i = 0; p[i]; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	v = strtol(p, &end, 10);
	return *end == '\0' && v >= 1 && v <= 65535;
}

int
syntax_host(const char *s, char **why)
{
	const char *host = s, *port = NULL, *colon;
	size_t n;
	char buf[64];

	if (!printable(s) || strlen(s) > 300) {
		*why = xasprintf("'%s' is not HOST[:PORT]", s);
		return -1;
	}
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (close == NULL || (size_t)(close - s - 1) >= sizeof(buf)) {
			*why = xasprintf("'%s': an IPv6 address goes in "
			    "brackets: [::1]:443", s);
			return -1;
		}
		memcpy(buf, s + 1, (size_t)(close - s - 1));
		buf[close - s - 1] = '\0';
		if (inet_pton(AF_INET6, buf, &(struct in6_addr){ 0 }) != 1) {
			*why = xasprintf("'%s': not an IPv6 address", buf);
			return -1;
		}
		if (close[1] == ':')
			port = close + 2;
		else if (close[1] != '\0') {
			*why = xasprintf("'%s' is not HOST[:PORT]", s);
			return -1;
		}
	} else {
		colon = strchr(s, ':');
		if (colon && strchr(colon + 1, ':')) {
			if (inet_pton(AF_INET6, s, &(struct in6_addr){ 0 }) == 1)
				*why = xasprintf("'%s': an IPv6 address goes in "
				    "brackets: [::1]:443", s);
			else
				*why = xasprintf("'%s' is not HOST[:PORT]", s);
			return -1;
		}
		n = colon ? (size_t)(colon - s) : strlen(s);
		if (colon)
			port = colon + 1;
		if (strncmp(host, "*.", 2) == 0) {
			host += 2;
			n -= 2;
		}
		if (n > 0 && host[n - 1] == '.') {
			*why = xasprintf("'%s': no trailing dot, please", s);
			return -1;
		}
		if (legacy_ipv4(host, n)) {
			*why = xasprintf("'%.*s' reads as an IPv4 address in a "
			    "legacy form; write it as four decimal numbers "
			    "(127.0.0.1)", (int)n, host);
			return -1;
		}
		if (!dns_name(host, n)) {
			*why = xasprintf("'%.*s' is not a host name (lower-case "
			    "letters, digits, '-' and '.'), '*.domain' or an IP "
			    "address", (int)(n + (size_t)(host - s)), s);
			return -1;
		}
	}
	if (port && !port_ok(port)) {
		*why = xasprintf("'%s': the port must be 1 to 65535", s);
		return -1;
	}
	return 0;
}

int
syntax_env_name(const char *s, bool glob, char **why)
{
	size_t n = strlen(s), i;

	if (glob && n > 1 && s[n - 1] == '*')
		n--;
	if (n == 0 || isdigit((unsigned char)s[0]))
		goto bad;
	for (i = 0; i < n; i++)
		if (!(s[i] == '_' || isalnum((unsigned char)s[i])))
			goto bad;
	return 0;
bad:
	*why = xasprintf("'%s' is not a variable name (letters, digits and _, "
	    "not starting with a digit%s)", s, glob ? "; or a prefix ending "
	    "in *" : "");
	return -1;
}

int
syntax_env_set(const char *s, char **why)
{
	const char *eq = strchr(s, '=');
	autofree char *name = NULL;

	if (eq == NULL) {
		*why = xasprintf("'%s': expected NAME=VALUE", s);
		return -1;
	}
	name = xstrndup(s, (size_t)(eq - s));
	return syntax_env_name(name, false, why);
}

char *
syntax_expand(const char *path, const char *home)
{
	if (streq(path, "~"))
		return xstrdup(home);
	if (strncmp(path, "~/", 2) == 0)
		return path_join(home, path + 2);
	return xstrdup(path);
}

int
syntax_inject(const char *s, char **provider, char **upstream, char **why)
{
	const char *sp = strchr(s, ' ');
	autofree char *name = NULL;

	*provider = *upstream = NULL;
	if (streq(s, "none"))
		return 0;
	if (sp == NULL) {
		*why = xasprintf("'%s' is not PROVIDER HOST[:PORT] (or none)",
		    s);
		return -1;
	}
	name = xstrndup(s, (size_t)(sp - s));
	if (syntax_word(name, syntax_providers, why) < 0)
		return -1;
	while (*sp == ' ')
		sp++;
	if (syntax_host(sp, why) < 0)
		return -1;
	if (strncmp(sp, "*.", 2) == 0) {
		*why = xasprintf("'%s': one host, not a pattern", sp);
		return -1;
	}
	*provider = steal_ptr(&name);
	*upstream = xstrdup(sp);
	return 0;
}

/* A JSON field's dotted path: names of letters, digits, '_' and '-'. */
static bool
field_ok(const char *s)
{
	size_t i, seg = 0;

	for (i = 0; s[i]; i++) {
		if (s[i] == '.') {
			if (seg == 0)
				return false;
			seg = 0;
		} else if (isalnum((unsigned char)s[i]) || s[i] == '_' ||
		    s[i] == '-')
			seg++;
		else
			return false;
	}
	return seg > 0;
}

/* The next blank-separated word of *s, as a heap string; NULL at the end. */
static char *
word(const char **s)
{
	const char *p = *s, *e;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0')
		return NULL;
	for (e = p; *e && *e != ' ' && *e != '\t'; e++)
		;
	*s = e;
	return xstrndup(p, (size_t)(e - p));
}

int
syntax_source(const char *s, struct syntax_source *ret, char **why)
{
	static const char *const types[] = { "variable", "file", "command",
	    NULL };
	const char *rest = s;
	autofree char *type = NULL, *extra = NULL;
	int t;

	memset(ret, 0, sizeof(*ret));
	if (!printable(s)) {
		*why = xasprintf("a source is printable text");
		return -1;
	}
	ret->kind = word(&rest);
	type = word(&rest);
	if (ret->kind == NULL || type == NULL) {
		*why = xasprintf("'%s' is not KIND variable NAME, KIND file "
		    "PATH [FIELD] or KIND command CMD", s);
		goto bad;
	}
	if (syntax_word(ret->kind, syntax_cred_kinds, why) < 0 ||
	    syntax_word(type, types, why) < 0)
		goto bad;
	ret->type = (enum syntax_source_type)(t = syntax_word_index(type,
	    types));
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (*rest == '\0') {
		*why = xasprintf("'%s': the %s is missing", s, t ==
		    SOURCE_VARIABLE ? "variable's name" : t == SOURCE_FILE ?
		    "file's path" : "command");
		goto bad;
	}
	if (ret->type == SOURCE_COMMAND) {
		if (streq(ret->kind, "login")) {
			*why = xasprintf("'%s': a login is read from its "
			    "file, not from a command", s);
			goto bad;
		}
		ret->spec = xstrdup(rest);
		return 0;
	}
	ret->spec = word(&rest);
	ret->field = word(&rest);
	extra = word(&rest);
	if (extra != NULL || (ret->type == SOURCE_VARIABLE && ret->field)) {
		*why = xasprintf("'%s': too many words (a path cannot hold a "
		    "blank here)", s);
		goto bad;
	}
	if (ret->type == SOURCE_VARIABLE) {
		if (syntax_env_name(ret->spec, false, why) < 0)
			goto bad;
		return 0;
	}
	if (syntax_path(ret->spec, why) < 0)
		goto bad;
	if (ret->field && !field_ok(ret->field)) {
		*why = xasprintf("'%s' is not a JSON field's dotted path "
		    "(names of letters, digits, '_' and '-')", ret->field);
		goto bad;
	}
	if (streq(ret->kind, "login") && ret->field == NULL) {
		*why = xasprintf("'%s': a login names the JSON object that "
		    "holds it (like claudeAiOauth)", s);
		goto bad;
	}
	return 0;
bad:
	syntax_source_free(ret);
	return -1;
}

void
syntax_source_free(struct syntax_source *s)
{
	free(s->kind);
	free(s->spec);
	free(s->field);
	memset(s, 0, sizeof(*s));
}

int
syntax_argument(const char *s, char **why)
{
	size_t n = strcspn(s, " \t"), i;

	if (!printable(s) || n == 0 || s[n] == '\0') {
		*why = xasprintf("'%s' is not NAME ARG... (a command's name, "
		    "then its words)", s);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || strchr("._+-", s[i]))) {
			*why = xasprintf("'%.*s' is not a command's name (letters, "
			    "digits, '.', '_', '+' and '-'; no path)", (int)n,
			    s);
			return -1;
		}
	return 0;
}

/*
 * The digits at *s as a number, *s moved past them; false when there are
 * none or the number does not fit in 64 bits.
 */
static bool
digits(const char **s, uint64_t *ret)
{
	const char *p = *s;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*s = p;
	*ret = v;
	return true;
}

int
syntax_size(const char *s, uint64_t *ret, char **why)
{
	static const char units[] = "KMGT";
	const char *p = s, *u;
	uint64_t v;
	unsigned int shift = 0;

	if (streq(s, "none")) {
		*ret = 0;
		return 0;
	}
	if (!digits(&p, &v))
		goto bad;
	if (*p != '\0') {
		if ((u = strchr(units, toupper((unsigned char)*p))) == NULL ||
		    p[1] != '\0')
			goto bad;
		shift = 10 * (unsigned int)(u - units + 1);
		if (v > UINT64_MAX >> shift) {
			*why = xasprintf("'%s' is too large", s);
			return -1;
		}
		v <<= shift;
	}
	if (v < SYNTAX_SIZE_MIN) {
		*why = xasprintf("'%s' is too small: at least 1M (a bare number "
		    "is bytes; 4G is 4 GiB)", s);
		return -1;
	}
	*ret = v;
	return 0;
bad:
	if (!printable(s))
		*why = xasprintf("not a size (a number of bytes with K, M, G or "
		    "T: 512M, 4G), or none");
	else
		*why = xasprintf("'%s' is not a size (a number of bytes with K, "
		    "M, G or T: 512M, 4G), or none", s);
	return -1;
}

int
syntax_tasks(const char *s, uint64_t *ret, char **why)
{
	const char *p = s;
	uint64_t v;

	if (streq(s, "none")) {
		*ret = 0;
		return 0;
	}
	if (!digits(&p, &v) || *p != '\0') {
		if (!printable(s))
			*why = xasprintf("not a number of tasks (a whole "
			    "number), or none");
		else
			*why = xasprintf("'%s' is not a number of tasks (a "
			    "whole number), or none", s);
		return -1;
	}
	if (v < SYNTAX_TASKS_MIN || v > SYNTAX_TASKS_MAX) {
		*why = xasprintf("'%s': from %d to %d tasks (the sandbox's "
		    "first process counts)", s, SYNTAX_TASKS_MIN,
		    SYNTAX_TASKS_MAX);
		return -1;
	}
	*ret = v;
	return 0;
}

int
syntax_cpus(const char *s, uint64_t *ret, char **why)
{
	const char *p = s, *frac;
	uint64_t whole, part = 0, v;
	size_t n;

	if (streq(s, "none")) {
		*ret = 0;
		return 0;
	}
	if (!digits(&p, &whole))
		goto bad;
	if (*p == '.') {
		frac = ++p;
		if (!digits(&p, &part))
			goto bad;
		if ((n = (size_t)(p - frac)) > 3) {
			*why = xasprintf("'%s': at most 3 decimals", s);
			return -1;
		}
		for (; n < 3; n++)
			part *= 10;
	}
	if (*p != '\0')
		goto bad;
	if (whole > SYNTAX_CPUS_MAX / 1000 ||
	    (v = whole * 1000 + part) > SYNTAX_CPUS_MAX) {
		*why = xasprintf("'%s' is too large", s);
		return -1;
	}
	if (v == 0) {
		*why = xasprintf("'%s': more than 0 CPUs, or none", s);
		return -1;
	}
	*ret = v;
	return 0;
bad:
	if (!printable(s))
		*why = xasprintf("not a number of CPUs (1, 0.5, 2.25), or none");
	else
		*why = xasprintf("'%s' is not a number of CPUs (1, 0.5, 2.25), "
		    "or none", s);
	return -1;
}
