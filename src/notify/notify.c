/* SPDX-License-Identifier: MIT */
/*
 * notify.c - the notification worker (notify.h): a bounded queue of rendered
 * deliveries, one thread that runs exec hooks and POSTs webhooks, retrying
 * failures with backoff (1, 2, 4, 8, 16 s; 6 attempts) without holding up the
 * deliveries behind them. Alertmanager targets get what Prometheus sends: the
 * active alerts again every am_resend_ms (Alertmanager resolves an alert not
 * re-sent before its endsAt / resolve_timeout), a startsAt that stays the
 * time it fired, endsAt = now + 4 resend intervals on a firing alert, endsAt
 * = the time it cleared on a resolve, and a generatorURL.
 */
#include "notify/notify.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"

extern char **environ;

#define QMAX 256
#define ATTEMPTS 6
#define EXEC_TIMEOUT_MS 10000

struct job {
    int target;
    char *body;
    char *env[10];          /* GPUSCOPE_ALERT_* for exec */
    int attempts;
    int64_t due_ms;
};

/* An alert Alertmanager should keep seeing. */
struct amalert {
    bool used;
    const struct gs_rule *rule;
    int32_t gpu;
    uint32_t pid;
    char code[32];
    struct gs_finding f;
    int64_t starts_wall_ms;
};

#define AMMAX 1024

struct gs_notifier {
    const struct gs_rules *rs;
    FILE *log;
    char host[64];
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct job q[QMAX];
    int nq;
    bool stopping;
    int64_t deadline_ms;
    unsigned dropped;       /* queue full at send */
    unsigned undelivered;   /* gave up after the retries, or still queued at exit */
    CURL *curl;
    bool have_am;           /* some target speaks Alertmanager */
    struct amalert am[AMMAX];
    int64_t am_next_ms;     /* next re-send of the active alerts (monotonic) */
};

/* RFC 3339 UTC with milliseconds, as Alertmanager prints them. */
static void iso_at(int64_t ms, char *buf, size_t cap)
{
    struct tm tm;
    time_t s = (time_t)(ms / 1000);
    gmtime_r(&s, &tm);
    size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, cap - n, ".%03dZ", (int)(ms % 1000));
}

/* Whole seconds, for the log line and the generic/Slack formats. */
static void iso_time(char *buf, size_t cap)
{
    struct tm tm;
    time_t s = (time_t)(gs_clock_wall_ms() / 1000);
    gmtime_r(&s, &tm);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* One Alertmanager v2 alert object. */
static json_t *am_alert_json(const struct gs_rule *rule, const struct gs_finding *f, const char *host,
                             int64_t starts_ms, int64_t ends_ms)
{
    char gpu[16], starts[40], ends[40], url[400], esc[96];
    snprintf(gpu, sizeof(gpu), "%d", f->gpu);
    iso_at(starts_ms, starts, sizeof(starts));
    iso_at(ends_ms, ends, sizeof(ends));
    size_t k = 0;
    for (const char *p = rule->name; *p && k + 4 < sizeof(esc); p++) { /* a URL query value */
        unsigned char c = (unsigned char)*p;
        if (isalnum(c) || strchr("-._~", c))
            esc[k++] = (char)c;
        else
            k += (size_t)snprintf(esc + k, sizeof(esc) - k, "%%%02X", c);
    }
    esc[k] = '\0';
    snprintf(url, sizeof(url), "gpuscope://%s/watch?rule=%s&gpu=%d&code=%s", host, esc, f->gpu, f->code);
    json_t *a = json_pack("{s:{s:s,s:s,s:s,s:s,s:s},s:{s:s,s:s,s:s}}", "labels", "alertname", rule->name,
                          "severity", gs_sev_name((enum gs_sev)f->severity), "instance", host, "gpu", gpu, "code",
                          f->code, "annotations", "summary", f->title, "description", f->evidence, "action",
                          f->action);
    if (!a)
        return NULL;
    if (f->pid)
        json_object_set_new(json_object_get(a, "labels"), "pid", json_sprintf("%u", f->pid));
    json_object_set_new(a, "startsAt", json_string(starts));
    json_object_set_new(a, "endsAt", json_string(ends));
    json_object_set_new(a, "generatorURL", json_string(url));
    return a;
}

char *gs_notify_render(const struct gs_alert_note *n, enum gs_webhook_format fmt, const char *host)
{
    const struct gs_finding *f = &n->alert->last;
    const char *state = n->resolved ? "resolved" : "firing";
    char when[32], gpu[16], text[2048];
    iso_time(when, sizeof(when));
    snprintf(gpu, sizeof(gpu), "%d", f->gpu);
    json_t *root;
    if (fmt == GS_WH_SLACK) {
        snprintf(text, sizeof(text), "[%s] %s %s on %s: %s\n%s%s%s", n->resolved ? "RESOLVED" : "FIRING",
                 gs_sev_name((enum gs_sev)f->severity), n->rule->name, host, f->title, f->evidence,
                 f->action[0] && !n->resolved ? "\nAction: " : "", n->resolved ? "" : f->action);
        root = json_pack("{s:s}", "text", text);
    } else if (fmt == GS_WH_ALERTMANAGER) {
        /* one alert, standalone (the notifier's own path keeps startsAt across re-sends) */
        int64_t now = gs_clock_wall_ms();
        root = json_array();
        json_array_append_new(root, am_alert_json(n->rule, f, host, now, n->resolved ? now : now + 240000));
    } else {
        root = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:s,s:s,s:s,s:s,s:f,s:s,s:s}", "state", state, "severity",
                         gs_sev_name((enum gs_sev)f->severity), "rule", n->rule->name, "code", f->code, "gpu",
                         f->gpu == GS_NO_GPU ? json_null() : json_integer(f->gpu), "pid",
                         f->pid ? json_integer(f->pid) : json_null(), "title", f->title, "evidence", f->evidence,
                         "cause", f->cause, "action", f->action, "value", f->value, "host", host, "time", when);
    }
    char *s = root ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    return s;
}

static void exec_env(struct job *j, const struct gs_alert_note *n)
{
    const struct gs_finding *f = &n->alert->last;
    const char *k[] = { "STATE", "SEVERITY", "RULE", "CODE", "GPU", "PID", "TITLE", "EVIDENCE", "VALUE" };
    char v[9][200];
    snprintf(v[0], sizeof(v[0]), "%s", n->resolved ? "resolved" : "firing");
    snprintf(v[1], sizeof(v[1]), "%s", gs_sev_name((enum gs_sev)f->severity));
    snprintf(v[2], sizeof(v[2]), "%s", n->rule->name);
    snprintf(v[3], sizeof(v[3]), "%s", f->code);
    snprintf(v[4], sizeof(v[4]), "%d", f->gpu);
    snprintf(v[5], sizeof(v[5]), "%u", f->pid);
    snprintf(v[6], sizeof(v[6]), "%s", f->title);
    snprintf(v[7], sizeof(v[7]), "%.199s", f->evidence);
    snprintf(v[8], sizeof(v[8]), "%g", f->value);
    for (int i = 0; i < 9; i++)
        if (asprintf(&j->env[i], "GPUSCOPE_ALERT_%s=%s", k[i], v[i]) < 0)
            j->env[i] = NULL;
}

static void job_free(struct job *j)
{
    free(j->body);
    for (int i = 0; i < 10; i++)
        free(j->env[i]);
    memset(j, 0, sizeof(*j));
}

/* Queue a body for target t (lock held). */
static void enqueue(struct gs_notifier *nt, int t, char *body, const struct gs_alert_note *n)
{
    if (!body)
        return;
    if (nt->nq == QMAX) {
        nt->dropped++;
        free(body);
        return;
    }
    struct job *j = &nt->q[nt->nq++];
    memset(j, 0, sizeof(*j));
    j->target = t;
    j->body = body;
    if (n && nt->rs->targets[t].kind == GS_NOTIFY_EXEC)
        exec_env(j, n);
    j->due_ms = gs_clock_mono_ms();
}

static struct amalert *am_find(struct gs_notifier *nt, const struct gs_alert_note *n, bool create)
{
    const struct gs_alert *a = n->alert;
    struct amalert *free_slot = NULL;
    for (int i = 0; i < AMMAX; i++) {
        struct amalert *x = &nt->am[i];
        if (x->used && x->rule == n->rule && x->gpu == a->gpu && x->pid == a->pid && !strcmp(x->code, a->code))
            return x;
        if (!x->used && !free_slot)
            free_slot = x;
    }
    if (!create || !free_slot)
        return NULL;
    memset(free_slot, 0, sizeof(*free_slot));
    free_slot->used = true;
    free_slot->rule = n->rule;
    free_slot->gpu = a->gpu;
    free_slot->pid = a->pid;
    snprintf(free_slot->code, sizeof(free_slot->code), "%s", a->code);
    free_slot->starts_wall_ms = gs_clock_wall_ms();
    return free_slot;
}

static char *am_body_one(struct gs_notifier *nt, const struct amalert *x, int64_t ends_ms)
{
    json_t *root = json_array();
    json_array_append_new(root, am_alert_json(x->rule, &x->f, nt->host, x->starts_wall_ms, ends_ms));
    char *body = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    return body;
}

/* Firing: remember it (startsAt stays), send it now; resolved: send endsAt =
 * now, forget it. Done even over the rate limit: Alertmanager must know. */
static void am_note(struct gs_notifier *nt, const struct gs_alert_note *n)
{
    struct amalert *x = am_find(nt, n, !n->resolved);
    if (!x)
        return;
    x->f = n->alert->last;
    int64_t now = gs_clock_wall_ms();
    char *body = am_body_one(nt, x, n->resolved ? now : now + 4 * nt->rs->am_resend_ms);
    for (int t = 0; t < nt->rs->ntargets; t++)
        if (nt->rs->targets[t].kind == GS_NOTIFY_WEBHOOK && nt->rs->targets[t].format == GS_WH_ALERTMANAGER)
            enqueue(nt, t, body ? strdup(body) : NULL, NULL);
    free(body);
    if (n->resolved)
        x->used = false;
}

void gs_notifier_send(struct gs_notifier *nt, const struct gs_alert_note *n)
{
    const struct gs_finding *f = &n->alert->last;
    char when[32];
    if (!n->limited) {
        iso_time(when, sizeof(when));
        fprintf(nt->log, "%s %s %s [%s] %s: %s | %s\n", when, n->resolved ? "RESOLVED" : "FIRING",
                gs_sev_name((enum gs_sev)f->severity), n->rule->name, f->code, f->title, f->evidence);
        fflush(nt->log);
    }
    pthread_mutex_lock(&nt->mu);
    if (nt->have_am)
        am_note(nt, n);
    for (int t = 0; t < nt->rs->ntargets && !n->limited; t++) {
        const struct gs_notify_target *tg = &nt->rs->targets[t];
        if (tg->kind == GS_NOTIFY_WEBHOOK && tg->format == GS_WH_ALERTMANAGER)
            continue; /* am_note */
        enqueue(nt, t, gs_notify_render(n, tg->kind == GS_NOTIFY_WEBHOOK ? tg->format : GS_WH_GENERIC, nt->host), n);
    }
    pthread_cond_signal(&nt->cv);
    pthread_mutex_unlock(&nt->mu);
}

/* Every am_resend_ms: all active alerts in one POST per Alertmanager target (lock held). */
static void am_resend(struct gs_notifier *nt)
{
    if (!nt->have_am || gs_clock_mono_ms() < nt->am_next_ms)
        return;
    nt->am_next_ms = gs_clock_mono_ms() + nt->rs->am_resend_ms;
    int64_t ends = gs_clock_wall_ms() + 4 * nt->rs->am_resend_ms;
    json_t *root = json_array();
    for (int i = 0; i < AMMAX; i++)
        if (nt->am[i].used)
            json_array_append_new(root, am_alert_json(nt->am[i].rule, &nt->am[i].f, nt->host,
                                                      nt->am[i].starts_wall_ms, ends));
    char *body = json_array_size(root) ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    for (int t = 0; body && t < nt->rs->ntargets; t++)
        if (nt->rs->targets[t].kind == GS_NOTIFY_WEBHOOK && nt->rs->targets[t].format == GS_WH_ALERTMANAGER)
            enqueue(nt, t, strdup(body), NULL);
    free(body);
}

/* ---- delivery (worker thread, lock not held) ------------------------------------------------ */

static size_t discard(char *p, size_t sz, size_t n, void *arg)
{
    (void)p;
    (void)arg;
    return sz * n;
}

static bool post(struct gs_notifier *nt, const char *url, const char *body, char *why, size_t cap)
{
    struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
    CURL *c = nt->curl;
    long code = 0;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 3000L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "gpuscope-watch");
    CURLcode rc = curl_easy_perform(c);
    curl_slist_free_all(hdr);
    if (rc != CURLE_OK) {
        snprintf(why, cap, "%s", curl_easy_strerror(rc));
        return false;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    if (code < 200 || code >= 300) {
        snprintf(why, cap, "HTTP %ld", code);
        return false;
    }
    return true;
}

static bool run_exec(const struct gs_notify_target *tg, struct job *j, char *why, size_t cap)
{
    int pfd[2];
    pid_t pid;
    size_t ne = 0;
    while (environ[ne])
        ne++;
    char **envp = calloc(ne + 11, sizeof(char *));
    if (!envp || pipe2(pfd, O_CLOEXEC) < 0) {
        free(envp);
        snprintf(why, cap, "out of resources");
        return false;
    }
    memcpy(envp, environ, ne * sizeof(char *));
    for (int i = 0; i < 10 && j->env[i]; i++)
        envp[ne++] = j->env[i];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[0], 0);
    int rc = posix_spawn(&pid, tg->argv[0], &fa, NULL, tg->argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    close(pfd[0]);
    if (rc != 0) {
        close(pfd[1]);
        snprintf(why, cap, "%s: %s", tg->argv[0], strerror(rc));
        return false;
    }
    ssize_t w = write(pfd[1], j->body, strlen(j->body)); /* SIGPIPE is ignored by watch */
    (void)w;
    close(pfd[1]);
    int status = 0;
    int64_t end = gs_clock_mono_ms() + EXEC_TIMEOUT_MS;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (gs_clock_mono_ms() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            snprintf(why, cap, "%s: killed after %d s", tg->argv[0], EXEC_TIMEOUT_MS / 1000);
            return false;
        }
        usleep(5000);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(why, cap, "%s: exit status %d", tg->argv[0], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return false;
    }
    return true;
}

/* Index of the earliest due job, or -1; *wait_ms until it is due. */
static int next_job(struct gs_notifier *nt, int64_t *wait_ms)
{
    int best = -1;
    for (int i = 0; i < nt->nq; i++)
        if (best < 0 || nt->q[i].due_ms < nt->q[best].due_ms)
            best = i;
    *wait_ms = best < 0 ? 1000 : nt->q[best].due_ms - gs_clock_mono_ms();
    return best;
}

static void *worker(void *arg)
{
    struct gs_notifier *nt = arg;
    pthread_mutex_lock(&nt->mu);
    for (;;) {
        int64_t wait;
        if (!nt->stopping)
            am_resend(nt);
        int i = next_job(nt, &wait);
        if (nt->have_am && !nt->stopping && nt->am_next_ms - gs_clock_mono_ms() < wait)
            wait = nt->am_next_ms - gs_clock_mono_ms() > 0 ? nt->am_next_ms - gs_clock_mono_ms() : 1;
        if (nt->stopping && (i < 0 || gs_clock_mono_ms() >= nt->deadline_ms))
            break;
        if (i < 0 || wait > 0) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            int64_t w = wait;
            if (nt->stopping && gs_clock_mono_ms() + w > nt->deadline_ms)
                w = nt->deadline_ms - gs_clock_mono_ms();
            w = w < 1 ? 1 : w;
            ts.tv_sec += w / 1000;
            ts.tv_nsec += (w % 1000) * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&nt->cv, &nt->mu, &ts);
            continue;
        }
        struct job j = nt->q[i];
        nt->q[i] = nt->q[--nt->nq];
        pthread_mutex_unlock(&nt->mu);
        const struct gs_notify_target *tg = &nt->rs->targets[j.target];
        char why[256] = "";
        bool ok = tg->kind == GS_NOTIFY_WEBHOOK ? post(nt, tg->url, j.body, why, sizeof(why))
                                                : run_exec(tg, &j, why, sizeof(why));
        pthread_mutex_lock(&nt->mu);
        if (ok || ++j.attempts >= ATTEMPTS || nt->nq == QMAX) {
            if (!ok) {
                fprintf(stderr, "gpuscope watch: giving up on %s after %d attempts: %s\n",
                        tg->kind == GS_NOTIFY_WEBHOOK ? tg->url : tg->argv[0], j.attempts, why);
                nt->undelivered++;
            }
            job_free(&j);
        } else {
            fprintf(stderr, "gpuscope watch: %s failed (%s); retry %d in %d s\n",
                    tg->kind == GS_NOTIFY_WEBHOOK ? tg->url : tg->argv[0], why, j.attempts, 1 << (j.attempts - 1));
            j.due_ms = gs_clock_mono_ms() + 1000LL * (1 << (j.attempts - 1));
            nt->q[nt->nq++] = j;
        }
    }
    pthread_mutex_unlock(&nt->mu);
    return NULL;
}

struct gs_notifier *gs_notifier_start(const struct gs_rules *rs, FILE *log, struct gs_err *err)
{
    struct gs_notifier *nt = calloc(1, sizeof(*nt));
    if (!nt) {
        gs_err_set(err, GS_E_NOMEM, "out of memory");
        return NULL;
    }
    nt->rs = rs;
    nt->log = log;
    for (int t = 0; t < rs->ntargets; t++)
        nt->have_am |= rs->targets[t].kind == GS_NOTIFY_WEBHOOK && rs->targets[t].format == GS_WH_ALERTMANAGER;
    nt->am_next_ms = gs_clock_mono_ms() + rs->am_resend_ms;
    if (gethostname(nt->host, sizeof(nt->host) - 1) < 0)
        snprintf(nt->host, sizeof(nt->host), "localhost");
    pthread_mutex_init(&nt->mu, NULL);
    pthread_cond_init(&nt->cv, NULL);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    nt->curl = curl_easy_init();
    if (!nt->curl || pthread_create(&nt->thread, NULL, worker, nt) != 0) {
        gs_err_set(err, GS_E_INTERNAL, "cannot start the notification thread%s",
                   nt->curl ? "" : " (libcurl could not initialise)");
        gs_err_hint(err, "the process may be at its thread or memory limit (ulimit -u, the cgroup's pids.max)");
        if (nt->curl)
            curl_easy_cleanup(nt->curl);
        free(nt);
        return NULL;
    }
    return nt;
}

unsigned gs_notifier_stop(struct gs_notifier *nt, int deadline_ms)
{
    if (!nt)
        return 0;
    pthread_mutex_lock(&nt->mu);
    nt->stopping = true;
    nt->deadline_ms = gs_clock_mono_ms() + deadline_ms;
    pthread_cond_signal(&nt->cv);
    pthread_mutex_unlock(&nt->mu);
    pthread_join(nt->thread, NULL);
    for (int i = 0; i < nt->nq; i++) {
        fprintf(stderr, "gpuscope watch: undelivered notification dropped at exit\n");
        job_free(&nt->q[i]);
        nt->undelivered++;
    }
    if (nt->dropped)
        fprintf(stderr, "gpuscope watch: %u notifications dropped (queue full)\n", nt->dropped);
    unsigned lost = nt->dropped + nt->undelivered;
    curl_easy_cleanup(nt->curl);
    curl_global_cleanup();
    pthread_mutex_destroy(&nt->mu);
    pthread_cond_destroy(&nt->cv);
    free(nt);
    return lost;
}
