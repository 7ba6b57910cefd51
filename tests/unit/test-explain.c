/* SPDX-License-Identifier: MIT */
/* Rendering decisions (SPEC 8 JSON), string escaping, subtree iteration. */
#include "cgoom/explain.h"
#include "snapbuild.h"
#include "tap.h"

static void seed(struct cgoom_snapshot *s)
{
	sb_init(s, 1000);
	sb_cg(s, "/cg1", 250);
	sb_cg(s, "/cg2", 300);
	sb_proc(s, 101, "/cg1", 250, 0);
	sb_proc(s, 201, "/cg2", 150, 0);
	sb_proc(s, 202, "/cg2", 150, 0);
}

static void test_json_schema(void)
{
	struct cgoom_snapshot s;
	seed(&s);
	struct cgoom_config c;
	struct cgoom_config_error e;
	const char *txt = "[cgroup \"/\"]\noom_policy = cgroup\n";
	CHECK(cgoom_config_parse(txt, strlen(txt), &c, &e) == 0);
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	struct cgoom_strbuf b = { 0 };
	cgoom_explain_json(&b, &s, &sb_set, &d);
	CHECK(!b.failed);
	printf("# %s\n", b.buf);
	CHECK(strncmp(b.buf, "{\"domain\": \"/\", \"policy\": \"cgroup\"", 34) == 0);
	CHECK(strstr(b.buf, "\"candidates\": [{\"cgroup\": \"/cg2\", \"kind\": \"leaf\", \"footprint\": 314572800, "
			    "\"score\": 314572800, \"preference\": \"none\"") != NULL);
	CHECK(strstr(b.buf, "\"victim\": {\"cgroup\": \"/cg2\", \"kind\": \"leaf\", \"process\": 201, "
			    "\"scope\": null, \"cgroup_kill\": false, \"pids\": [201]}") != NULL);
	CHECK(strstr(b.buf, "\"kind\": \"root\"") == NULL); /* nothing attached to / */
	CHECK(b.buf[b.len - 1] == '}');
	cgoom_strbuf_free(&b);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

static void test_json_null_victim(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_done(&s, NULL);
	struct cgoom_decision d = sb_select(&s, "/");
	struct cgoom_strbuf b = { 0 };
	cgoom_explain_json(&b, &s, &sb_set, &d);
	CHECK(strstr(b.buf, "\"candidates\": [], \"victim\": null") != NULL);
	cgoom_strbuf_free(&b);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

static void test_json_escaping(void)
{
	struct cgoom_strbuf b = { 0 };
	cgoom_strbuf_json_string(&b, "a\"b\\c\n\x01\xff\xc3\xa9\xe2\x82");
	CHECK_STREQ(b.buf, "\"a\\\"b\\\\c\\u000a\\u0001\\u00ff\xc3\xa9\\u00e2\\u0082\"");
	cgoom_strbuf_free(&b);
	cgoom_strbuf_escaped(&b, "x\ty\xff");
	CHECK_STREQ(b.buf, "x\\x09y\\xff");
	cgoom_strbuf_free(&b);
	cgoom_strbuf_free(&b);
}

static void test_text_marks_victim(void)
{
	struct cgoom_snapshot s;
	seed(&s);
	sb_done(&s, NULL);
	struct cgoom_decision d = sb_select(&s, "/");
	struct cgoom_strbuf b = { 0 };
	cgoom_explain_text(&b, &s, &sb_set, &d);
	printf("%s", b.buf);
	CHECK(strstr(b.buf, "domain /: policy none (default)") != NULL);
	CHECK(strstr(b.buf, ">    1 process /cg1") != NULL);
	CHECK(strstr(b.buf, "victim: /cg1, process 101 (p101)") != NULL);
	CHECK(strstr(b.buf, "kill: PID 101") != NULL);
	cgoom_strbuf_free(&b);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

static void test_human_size(void)
{
	char buf[32];
	CHECK_STREQ(cgoom_human_size(512, buf, sizeof(buf)), "512 B");
	CHECK_STREQ(cgoom_human_size(250 * MiB, buf, sizeof(buf)), "250.0 MiB");
	CHECK_STREQ(cgoom_human_size(1536 * MiB, buf, sizeof(buf)), "1.5 GiB");
	CHECK_STREQ(cgoom_human_size(UINT64_MAX, buf, sizeof(buf)), "16.0 EiB");
}

static void test_subtree_iteration(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/a", 1);
	sb_cg(&s, "/a/x", 1);
	sb_cg(&s, "/ab", 1);
	sb_proc(&s, 3, "/a/x", 1, 0);
	sb_proc(&s, 2, "/a", 1, 0);
	sb_proc(&s, 1, "/ab", 1, 0);
	sb_proc(&s, 4, "/", 1, 0);
	sb_done(&s, NULL);
	int a = sb_idx(&s, "/a"), k, seen[8], n = 0;
	for (size_t it = cgoom_subtree_begin(&s, a); cgoom_subtree_next(&s, a, &it, &k);)
		seen[n++] = s.procs[k].pid;
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_INT(seen[0], 2);
	CHECK_EQ_INT(seen[1], 3);
	n = 0;
	for (size_t it = cgoom_subtree_begin(&s, 0); cgoom_subtree_next(&s, 0, &it, &k);)
		n++;
	CHECK_EQ_INT(n, 4);
	CHECK(cgoom_snapshot_is_under(&s, sb_idx(&s, "/a/x"), a));
	CHECK(!cgoom_snapshot_is_under(&s, sb_idx(&s, "/ab"), a));
	CHECK_EQ_INT(cgoom_snapshot_find(&s, "/a/x/"), sb_idx(&s, "/a/x"));
	CHECK(cgoom_snapshot_find(&s, "/nope") < 0);
	cgoom_snapshot_free(&s);
}

static void test_setting_source_text(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/a", 1);
	sb_cg(&s, "/a/b", 1);
	s.cgroups[1].raw.has_trusted_policy = true;
	s.cgroups[1].raw.trusted_policy = CGOOM_POLICY_TREE;
	sb_done(&s, NULL);
	struct cgoom_strbuf b = { 0 };
	cgoom_setting_source(&b, &s, &sb_set, 2, &sb_set.cgroups[2].policy);
	CHECK_STREQ(b.buf, "inherited from /a (trusted.cgoom xattr)");
	cgoom_strbuf_free(&b);
	cgoom_setting_source(&b, &s, &sb_set, 0, &sb_set.cgroups[0].policy);
	CHECK_STREQ(b.buf, "default");
	cgoom_strbuf_free(&b);
	cgoom_snapshot_free(&s);
}

/* The resolver's notes (kept in the settings, not the snapshot) come
 * out where they were made: after the reader's, before a later fill's. */
static void test_notes_in_order(void)
{
	struct cgoom_snapshot s;
	seed(&s);
	s.cgroups[0].raw.has_trusted_policy = true;
	s.cgroups[0].raw.trusted_policy = CGOOM_POLICY_TREE; /* refused on the root: a note */
	CHECK_EQ_INT(cgoom_snapshot_note(&s, "read first"), 0);
	sb_done(&s, NULL);
	CHECK_EQ_INT(s.n_notes, 1); /* the snapshot is not written */
	CHECK_EQ_INT(sb_set.n_notes, 1);
	CHECK_EQ_INT(cgoom_snapshot_note(&s, "filled later"), 0);
	struct cgoom_decision d = sb_select(&s, "/");
	struct cgoom_strbuf b = { 0 };
	cgoom_explain_text(&b, &s, &sb_set, &d);
	CHECK(strstr(b.buf, "note: read first\nnote: /: trusted.cgoom.oom_policy=tree ignored: tree is "
			    "not allowed on the root cgroup\nnote: filled later\n") != NULL);
	cgoom_strbuf_free(&b);
	cgoom_explain_json(&b, &s, &sb_set, &d);
	CHECK(strstr(b.buf, "\"notes\": [\"read first\", \"/: trusted.cgoom.oom_policy=tree ignored: "
			    "tree is not allowed on the root cgroup\", \"filled later\"]}") != NULL);
	cgoom_strbuf_free(&b);
	cgoom_decision_free(&d);
	cgoom_snapshot_free(&s);
}

/* SPEC 4 / 8: kind "unattributed" in JSON and text (the KIND column
 * widens only then), what it is in words, and the shmem no process maps
 * left out, said when it matters (1 MiB and more) */
static void test_unattributed_and_unmapped(void)
{
	struct cgoom_snapshot s;
	sb_init(&s, 0);
	sb_cg(&s, "/u", 201);
	sb_cg(&s, "/u/m2", 1);
	int t = sb_cg(&s, "/t", 310);
	s.cgroups[t].stat.shmem = 300 * MiB;
	s.cgroups[t].stat.present |= CGOOM_MEMSTAT_SHMEM | CGOOM_MEMSTAT_FILE_MAPPED;
	sb_proc(&s, 901, "/u/m2", 1, 0);
	sb_proc(&s, 902, "/t", 10, 0);
	struct cgoom_config c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n[cgroup \"/u\"]\ndelegate = yes\n");
	sb_done(&s, &c);
	struct cgoom_decision d = sb_select(&s, "/");
	struct cgoom_strbuf b = { 0 };
	cgoom_explain_json(&b, &s, &sb_set, &d);
	CHECK(strstr(b.buf, "{\"cgroup\": \"/u\", \"kind\": \"unattributed\", \"footprint\": 209715200") != NULL);
	CHECK(strstr(b.buf, "\"victim\": {\"cgroup\": \"/u\", \"kind\": \"unattributed\", \"process\": 901") != NULL);
	CHECK(strstr(b.buf, "\"unmapped_shmem\": 314572800") != NULL);
	cgoom_strbuf_free(&b);
	cgoom_explain_text(&b, &s, &sb_set, &d);
	CHECK(strstr(b.buf, "  RANK KIND         CGROUP") != NULL);
	CHECK(strstr(b.buf, ">    1 unattributed /u ") != NULL);
	CHECK(strstr(b.buf, "     2 leaf         /t ") != NULL);
	CHECK(strstr(b.buf, "(charge below it no cgroup holding processes accounts for)") != NULL);
	CHECK(strstr(b.buf, "(300.0 MiB of unmapped shmem left out)") != NULL);
	CHECK(strstr(b.buf, "(footprints leave out 300.0 MiB of shmem and tmpfs no process maps and no "
			  "entity's processes alone hold open as deleted files or memfds: no kill frees it)") != NULL);
	CHECK(strstr(b.buf, "the footprint is charge below delegation root /u that no cgroup holding processes "
			    "accounts for") != NULL);
	cgoom_strbuf_free(&b);
	cgoom_decision_free(&d);
	/* a few KiB of shmem (a memfd, an IPC segment): in the JSON, not in words */
	s.cgroups[t].stat.shmem = 10 * MiB + 8192;
	s.cgroups[t].stat.file_mapped = 10 * MiB;
	d = sb_select(&s, "/");
	cgoom_explain_json(&b, &s, &sb_set, &d);
	CHECK(strstr(b.buf, "\"unmapped_shmem\": 8192") != NULL);
	cgoom_strbuf_free(&b);
	cgoom_explain_text(&b, &s, &sb_set, &d);
	CHECK(strstr(b.buf, "unmapped shmem") == NULL && strstr(b.buf, "leave out") == NULL);
	cgoom_strbuf_free(&b);
	cgoom_decision_free(&d);
	/* no unattributed row: the KIND column stays "process" wide */
	cgoom_config_free(&c);
	c = cfg_of("[cgroup \"/\"]\noom_policy = cgroup\n");
	sb_done(&s, &c);
	d = sb_select(&s, "/");
	cgoom_explain_text(&b, &s, &sb_set, &d);
	CHECK(strstr(b.buf, "  RANK KIND    CGROUP") != NULL);
	cgoom_strbuf_free(&b);
	cgoom_decision_free(&d);
	cgoom_config_free(&c);
	cgoom_snapshot_free(&s);
}

int main(void)
{
	return tap_run((struct tap_test[]){
		TAP(test_json_schema),
		TAP(test_json_null_victim),
		TAP(test_json_escaping),
		TAP(test_text_marks_victim),
		TAP(test_human_size),
		TAP(test_subtree_iteration),
		TAP(test_setting_source_text),
		TAP(test_notes_in_order),
		TAP(test_unattributed_and_unmapped),
		{ 0 },
	});
}
