# SPDX-License-Identifier: ISC
# tls-lib.sh - sourced after lib.sh by the keyholder's tests: a CA made at
# test time, certificates it signs, and a loopback HTTPS server standing in
# for a provider (tests/helpers/tls-upstream.py).  In $T (the test's own
# directory):
#
#   tls_certs NAME...   ca.pem, ca.key; NAME.pem and NAME.key for each
#                       NAME (subjectAltName DNS:NAME).  Bails out when
#                       openssl cannot make them.
#   tls_upstream ID NAME
#                       the server for NAME's certificate, recording every
#                       request to ID.rec (ID.dir: its control files);
#                       ID.out holds "port N"; its port in UP.  Bails out
#                       when it does not start.

UPSTREAM=$TESTS_SRCDIR/helpers/tls-upstream.py

tls_certs() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$T/ca.key" -out "$T/ca.pem" -subj /CN=confine-test-ca \
	    -days 2 -addext basicConstraints=critical,CA:TRUE \
	    -addext keyUsage=critical,keyCertSign 2>/dev/null || {
		echo "Bail out! openssl cannot make the test CA"
		exit 1
	}
	for _n; do
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		    -keyout "$T/$_n.key" -out "$T/$_n.csr" -subj "/CN=$_n" \
		    2>/dev/null &&
		printf 'subjectAltName=DNS:%s\n' "$_n" >"$T/$_n.ext" &&
		openssl x509 -req -in "$T/$_n.csr" -CA "$T/ca.pem" \
		    -CAkey "$T/ca.key" -CAcreateserial -out "$T/$_n.pem" \
		    -days 2 -extfile "$T/$_n.ext" 2>/dev/null || {
			echo "Bail out! openssl cannot make the certificate of $_n"
			exit 1
		}
	done
}

tls_upstream() {
	mkdir -p "$T/$1.dir"
	: >"$T/$1.rec"
	python3 "$UPSTREAM" "$T/$2.pem" "$T/$2.key" "$T/$1.rec" "$T/$1.dir" \
	    >"$T/$1.out" 2>"$T/$1.err" </dev/null &
	track_pid $!
	wait_for 10 grep -q '^port ' "$T/$1.out" || {
		echo "Bail out! the TLS server $1 did not start: $(cat "$T/$1.err")"
		exit 1
	}
	UP=$(sed -n 's/^port //p' "$T/$1.out")
}
