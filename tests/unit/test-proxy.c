// SPDX-License-Identifier: ISC
/*
 * test-proxy.c - the proxy's pure parts as tables: proxy_parse_connect
 * (what a CONNECT request head may be, and why the others are refused)
 * and proxy_rule_matches (exact names, case, ports, "*.domain", IP
 * literals), and proxy_host_address (which addresses a name may not
 * lead to: the host's own and the classes that reach it).  Everything a client sends is untrusted (escape catalogue
 * X3: the allow-list must judge the name that is connected to).
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "run/proxy.h"

#include "tap.h"

#define nitems_(a)	(sizeof(a) / sizeof((a)[0]))

struct parse_case {
	const char	*name;
	const char	*head;
	size_t		 len;		/* 0: strlen(head) */
	const char	*host;		/* NULL: refused */
	unsigned	 port;
	const char	*why;		/* a substring of the reason */
};

#define L(s)	s, sizeof(s) - 1

static const struct parse_case parse_cases[] = {
	{ "plain", "CONNECT example.com:443 HTTP/1.1\r\n\r\n", 0,
	    "example.com", 443, NULL },
	{ "HTTP/1.0", "CONNECT example.com:80 HTTP/1.0\r\n\r\n", 0,
	    "example.com", 80, NULL },
	{ "headers after", "CONNECT example.com:443 HTTP/1.1\r\nHost: "
	    "example.com:443\r\nUser-Agent: x\r\n\r\n", 0,
	    "example.com", 443, NULL },
	{ "bare LF", "CONNECT example.com:443 HTTP/1.1\n\n", 0,
	    "example.com", 443, NULL },
	{ "the version cut at the line's end",
	    "CONNECT example.com:443 HTTP/1\n", 0, NULL, 0, "not HTTP/1.x" },
	{ "the line ends at the space", "CONNECT example.com:443 \n", 0,
	    NULL, 0, "not HTTP/1.x" },
	{ "upper case lowered", "CONNECT EXAMPLE.Com:443 HTTP/1.1\r\n\r\n", 0,
	    "example.com", 443, NULL },
	{ "IPv4 literal", "CONNECT 127.0.0.1:8080 HTTP/1.1\r\n\r\n", 0,
	    "127.0.0.1", 8080, NULL },
	{ "IPv6 literal", "CONNECT [::1]:443 HTTP/1.1\r\n\r\n", 0,
	    "::1", 443, NULL },
	{ "port 65535", "CONNECT a.com:65535 HTTP/1.1\r\n\r\n", 0,
	    "a.com", 65535, NULL },
	{ "port 1", "CONNECT a.com:1 HTTP/1.1\r\n\r\n", 0, "a.com", 1, NULL },
	{ "255-char host", NULL, 0, "", 443, NULL },	/* built below */

	{ "NUL byte", L("CONNECT evil.com\0.allowed.com:443 HTTP/1.1\r\n\r\n"),
	    NULL, 0, "NUL" },
	{ "NUL after the head", L("CONNECT a.com:443 HTTP/1.1\r\n\r\n\0"),
	    NULL, 0, "NUL" },
	{ "missing port", "CONNECT example.com HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "not host:port" },
	{ "empty port", "CONNECT example.com: HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "port" },
	{ "port 0", "CONNECT example.com:0 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "port" },
	{ "port 00443", "CONNECT example.com:0443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "port" },
	{ "port 65536", "CONNECT example.com:65536 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "port" },
	{ "port 4294967297", "CONNECT example.com:4294967297 HTTP/1.1\r\n\r\n",
	    0, NULL, 0, "port" },
	{ "port +1", "CONNECT example.com:+1 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "port" },
	{ "port -1", "CONNECT example.com:-1 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "port" },
	{ "port 1x", "CONNECT example.com:1x HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "port" },
	{ "trailing dot", "CONNECT example.com.:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "trailing dot" },
	{ "@ in host", "CONNECT allowed.com@evil.com:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "character" },
	{ "/ in host", "CONNECT evil.com/allowed.com:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "character" },
	{ "% in host", "CONNECT evil.com%2e:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "character" },
	{ "backslash in host", "CONNECT evil.com\\x:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "character" },
	{ "tab in host", "CONNECT evil\t.com:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "character" },
	{ "control byte", "CONNECT evil\x01.com:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "character" },
	{ "space in host", "CONNECT evil com:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, NULL },
	{ "two spaces", "CONNECT  example.com:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, NULL },
	{ "non-ASCII", "CONNECT \xc3\xa9xample.com:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "ASCII" },
	{ "DEL byte", "CONNECT ex\x7f.com:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "character" },
	{ "a:1:2", "CONNECT a:1:2 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "not host:port" },
	{ "bare IPv6", "CONNECT ::1:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "not host:port" },
	{ "IPv6 without port", "CONNECT [::1] HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "IPv6" },
	{ "IPv6 unclosed", "CONNECT [::1:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "IPv6" },
	{ "GET", "GET http://example.com/ HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "not a CONNECT" },
	{ "lower-case connect", "connect example.com:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "not a CONNECT" },
	{ "leading space", " CONNECT example.com:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "not a CONNECT" },
	{ "HTTP/2", "CONNECT example.com:443 HTTP/2\r\n\r\n", 0,
	    NULL, 0, "HTTP/1" },
	{ "HTTP/2.0", "CONNECT example.com:443 HTTP/2.0\r\n\r\n", 0,
	    NULL, 0, "HTTP/1" },
	{ "no version", "CONNECT example.com:443\r\n\r\n", 0,
	    NULL, 0, "malformed" },
	{ "empty host", "CONNECT :443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "empty" },
	{ "empty IPv6 host", "CONNECT []:443 HTTP/1.1\r\n\r\n", 0,
	    NULL, 0, "empty" },
	{ "256-char host", NULL, 0, NULL, 443, "over-long" },	/* built below */
	{ "empty", "", 0, NULL, 0, "not a CONNECT" },
	{ "CONNECT alone", "CONNECT ", 0, NULL, 0, NULL },
};

static void
test_parse(void)
{
	size_t i;

	for (i = 0; i < nitems_(parse_cases); i++) {
		const struct parse_case *t = &parse_cases[i];
		autofree char *built = NULL, *want_host = NULL;
		const char *head = t->head, *why = NULL;
		char *host = NULL;
		unsigned port = 0;
		size_t len;
		int r;

		want_host = t->host ? xstrdup(t->host) : NULL;
		if (head == NULL) {
			/* A host of 255 (accepted) or 256 (refused) chars. */
			size_t hl = t->host ? 255 : 256;
			char name[300];

			memset(name, 'a', hl);
			name[hl] = '\0';
			for (size_t k = 63; k < hl; k += 64)
				name[k] = '.';
			built = xasprintf("CONNECT %s:443 HTTP/1.1\r\n\r\n", name);
			head = built;
			if (t->host) {
				free(want_host);
				want_host = xstrdup(name);
			}
		}
		len = t->len ? t->len : strlen(head);
		r = proxy_parse_connect(untrusted_wrap(head, len), &host, &port,
		    &why);
		if (want_host) {
			if (!ok(r == 0, "parse accepts: %s", t->name))
				diag("refused: %s", why ? why : "(no why)");
			is_str(host, want_host, "parse host: %s", t->name);
			is_int(port, t->port, "parse port: %s", t->name);
		} else {
			ok(r == -1, "parse refuses: %s", t->name);
			if (r == -1 && t->why) {
				if (!ok(why && strstr(why, t->why),
				    "  why names '%s'", t->why))
					diag("why: %s", why ? why : "(NULL)");
			} else if (t->why)
				ok(false, "  why names '%s'", t->why);
			else
				ok(why != NULL, "  a why");
		}
		free(host);
	}
}

struct rule_case {
	const char	*rule, *host;
	unsigned	 port;
	bool		 want;
};

static const struct rule_case rule_cases[] = {
	{ "example.com:443", "example.com", 443, true },
	{ "example.com:443", "example.com", 80, false },
	{ "example.com:443", "example.org", 443, false },
	{ "example.com:443", "www.example.com", 443, false },
	{ "example.com:443", "example.com.evil.net", 443, false },
	{ "example.com:443", "xexample.com", 443, false },
	{ "example.com", "example.com", 443, true },
	{ "example.com", "example.com", 1, true },
	{ "example.com", "example.com", 65535, true },
	{ "Example.COM:443", "example.com", 443, true },
	{ "*.example.com", "example.com", 443, false },
	{ "*.example.com", "x.example.com", 443, true },
	{ "*.example.com", "a.b.example.com", 443, true },
	{ "*.example.com", "xexample.com", 443, false },
	{ "*.example.com", "example.com.evil.net", 443, false },
	{ "*.example.com", ".example.com", 443, false },
	{ "*.example.com:443", "x.example.com", 443, true },
	{ "*.example.com:443", "x.example.com", 80, false },
	{ "*.example.com:443", "example.com", 443, false },
	{ "127.0.0.1:8080", "127.0.0.1", 8080, true },
	{ "127.0.0.1:8080", "127.0.0.1", 8081, false },
	{ "127.0.0.1:8080", "127.0.0.2", 8080, false },
	{ "127.0.0.1:8080", "localhost", 8080, false },
	{ "127.0.0.1", "127.0.0.1", 22, true },
	{ "10.0.0.1", "10.0.0.10", 22, false },
	{ "[::1]:443", "::1", 443, true },
	{ "[::1]:443", "::1", 80, false },
	{ "[::1]", "::1", 80, true },
	{ "[2001:db8::1]:443", "2001:db8::1", 443, true },
	{ "[2001:db8::1]:443", "2001:db8::2", 443, false },
	{ "[::1]:443", "127.0.0.1", 443, false },
	{ "[::1", "::1", 443, false },
	{ "localhost:8080", "localhost", 8080, true },
};

static void
test_rules(void)
{
	size_t i;

	for (i = 0; i < nitems_(rule_cases); i++) {
		const struct rule_case *t = &rule_cases[i];

		is_int(proxy_rule_matches(t->rule, t->host, t->port), t->want,
		    "rule %s %s %s:%u", t->rule, t->want ? "matches" :
		    "does not match", t->host, t->port);
	}
}

/* An address as a sockaddr: "a.b.c.d" or an IPv6 text. */
static struct sockaddr_storage
addr(const char *s)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

	if (inet_pton(AF_INET, s, &in->sin_addr) == 1)
		in->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, s, &in6->sin6_addr) == 1)
		in6->sin6_family = AF_INET6;
	else
		abort();
	return ss;
}

/*
 * This host: a LAN address, a docker bridge, a global IPv6 address.  Each
 * class of address, and each IPv6 form of an IPv4 one, is the host.
 */
static void
test_host_address(void)
{
	static const char *const host[] = { "127.0.0.1", "0.0.0.0",
	    "0.1.2.3", "127.1.2.3", "169.254.169.254", "224.0.0.1",
	    "239.255.255.250", "240.0.0.1", "255.255.255.255",
	    "192.168.1.20", "172.17.0.1", "::1", "::", "fe80::1",
	    "febf::1", "fec0::1", "ff02::1", "ff05::2", "2001:db8::20",
	    "::ffff:127.0.0.1", "::ffff:192.168.1.20", "::ffff:172.17.0.1",
	    "::ffff:0.0.0.0", "::ffff:169.254.1.1", "::ffff:224.0.0.1",
	    "::127.0.0.1", "::192.168.1.20", "::ffff:0:127.0.0.1",
	    "::ffff:0:192.168.1.20", "64:ff9b::127.0.0.1",
	    "64:ff9b::192.168.1.20", "64:ff9b::a9fe:a9fe",
	    "2002:7f00:1::1", "2002:c0a8:114::1", "2002:ac11:1:1::5" };
	static const char *const away[] = { "93.184.216.34", "8.8.8.8",
	    "192.168.1.21", "172.17.0.2", "10.0.0.1", "1.0.0.1",
	    "223.255.255.255", "2606:2800:220:1::1", "2001:db8::21",
	    "::ffff:93.184.216.34", "64:ff9b::5db8:d822",
	    "2002:5db8:d822::1", "fc00::1" };
	struct sockaddr_storage own[3], a;
	size_t i;

	own[0] = addr("192.168.1.20");
	own[1] = addr("172.17.0.1");
	own[2] = addr("2001:db8::20");
	for (i = 0; i < nitems_(host); i++) {
		a = addr(host[i]);
		ok(proxy_host_address((struct sockaddr *)&a, own, 3),
		    "%s is this host", host[i]);
	}
	for (i = 0; i < nitems_(away); i++) {
		a = addr(away[i]);
		ok(!proxy_host_address((struct sockaddr *)&a, own, 3),
		    "%s is not this host", away[i]);
	}
	a = addr("192.168.1.20");
	ok(!proxy_host_address((struct sockaddr *)&a, own, 0),
	    "an address leaves the host's list with its interface");
	a = (struct sockaddr_storage){ .ss_family = AF_UNIX };
	ok(proxy_host_address((struct sockaddr *)&a, own, 3),
	    "another family is refused");
}

int
main(void)
{
	test_parse();
	test_rules();
	test_host_address();
	return done();
}
