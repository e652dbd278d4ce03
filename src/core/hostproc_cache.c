/* SPDX-License-Identifier: MIT */
/*
 * hostproc_cache.c - the host-facts module's per-handle caches (see
 * hostproc_priv.h): the PID table, which carries what cannot change per
 * process and the descriptors kept across ticks, and the uid -> user name map.
 *
 * The PID table: open addressing with linear probing, at most half full,
 * deletion by backward shift (no tombstones), so lookups stay short however
 * PIDs come and go. A lookup is a multiply, a mask and usually one probe.
 */
#include "core/hostproc_priv.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/vec.h"

/* ---- the PID table ------------------------------------------------------------------ */

static uint32_t hp_hash(uint32_t pid, uint32_t nslots)
{
    return (uint32_t)(((uint64_t)pid * UINT64_C(0x9E3779B97F4A7C15)) >> 40) & (nslots - 1);
}

static struct hp_slot *hp_find_slot(struct hp_slot *slots, uint32_t nslots, uint32_t pid)
{
    uint32_t i = hp_hash(pid, nslots);

    while (slots[i].rec && slots[i].pid != pid)
        i = (i + 1) & (nslots - 1);
    return &slots[i];
}

static int hp_resize(struct gs_hostproc *hp, uint32_t nslots)
{
    struct hp_slot *slots = calloc(nslots, sizeof(*slots));

    if (!slots)
        return -1;
    for (uint32_t i = 0; i < hp->nslots; i++)
        if (hp->slots[i].rec)
            *hp_find_slot(slots, nslots, hp->slots[i].pid) = hp->slots[i];
    free(hp->slots);
    hp->slots = slots;
    hp->nslots = nslots;
    return 0;
}

struct hp_rec *gs_hp_lookup_add(struct gs_hostproc *hp, uint32_t pid)
{
    struct hp_slot *sl = hp_find_slot(hp->slots, hp->nslots, pid);
    struct hp_rec *rec;

    if (sl->rec)
        return sl->rec;
    if ((hp->nrecs + 1) * 2 > hp->nslots) {
        if (hp->nslots > UINT32_MAX / 2 || hp_resize(hp, hp->nslots * 2) < 0)
            return NULL;
        sl = hp_find_slot(hp->slots, hp->nslots, pid);
    }
    rec = calloc(1, sizeof(*rec));
    if (!rec)
        return NULL;
    rec->pid = pid;
    rec->live_fd = rec->dir_fd = -1;
    sl->pid = pid;
    sl->rec = rec;
    hp->nrecs++;
    return rec;
}

void gs_hp_drop_fds(struct gs_hostproc *hp, struct hp_rec *rec)
{
    if (rec->live_fd >= 0) {
        close(rec->live_fd);
        rec->live_fd = -1;
        hp->kept_fds--;
    }
    if (rec->dir_fd >= 0) {
        close(rec->dir_fd);
        rec->dir_fd = -1;
        hp->kept_fds--;
    }
}

/* Empty slot h, then move later members of its probe run back into the hole
 * when their home slot allows it. Holes only move forward, so a caller walking
 * the table upwards re-checks slot h and sees every live entry. */
static void hp_slot_delete(struct gs_hostproc *hp, uint32_t h)
{
    uint32_t mask = hp->nslots - 1, j = h;

    hp->slots[h].rec = NULL;
    for (;;) {
        j = (j + 1) & mask;
        if (!hp->slots[j].rec)
            return;
        uint32_t home = hp_hash(hp->slots[j].pid, hp->nslots);
        bool stays = h <= j ? (home > h && home <= j) : (home > h || home <= j);
        if (stays)
            continue;
        hp->slots[h] = hp->slots[j];
        hp->slots[j].rec = NULL;
        h = j;
    }
}

void gs_hp_evict_unseen(struct gs_hostproc *hp)
{
    for (uint32_t i = 0; i < hp->nslots; i++) {
        struct hp_rec *r;
        /* hp_slot_delete may pull a later entry into slot i: look again. */
        while ((r = hp->slots[i].rec) && r->seen_tick != hp->tick) {
            gs_hp_drop_fds(hp, r);
            gs_hp_clear_cmdline(&r->host);
            free(r);
            hp_slot_delete(hp, i);
            hp->nrecs--;
        }
    }
}

void gs_hp_table_free(struct gs_hostproc *hp)
{
    for (uint32_t i = 0; i < hp->nslots; i++) {
        if (hp->slots[i].rec) {
            gs_hp_drop_fds(hp, hp->slots[i].rec);
            gs_hp_clear_cmdline(&hp->slots[i].rec->host);
            free(hp->slots[i].rec);
        }
    }
    free(hp->slots);
    hp->slots = NULL;
    hp->nslots = hp->nrecs = 0;
}

/* ---- uid -> user name ------------------------------------------------------------------ */

void gs_hp_user_name(struct gs_hostproc *hp, uint32_t uid, char *name, size_t cap)
{
    struct passwd pw, *res = NULL;
    char buf[4096];

    for (uint32_t i = 0; i < hp->nusers; i++) {
        if (hp->users[i].uid == uid) {
            gs_hp_copy_str(name, cap, hp->users[i].name);
            return;
        }
    }
    if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_name[0])
        gs_hp_copy_str(name, cap, res->pw_name);
    else
        snprintf(name, cap, "%u", uid);
    struct hp_user *u = gs_vec_grow(hp->users, &hp->users_cap, (size_t)hp->nusers + 1, sizeof(*u));
    if (!u)
        return; /* not cached: looked up again next time */
    hp->users = u;
    hp->users[hp->nusers].uid = uid;
    gs_hp_copy_str(hp->users[hp->nusers].name, sizeof(hp->users[0].name), name);
    hp->nusers++;
}
