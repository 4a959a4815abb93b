/*
 * What the selection files share (select.c and the files of choices,
 * select_reduce.c, select_scan.c, select_rooted.c and select_move.c).
 *
 * Each collective has a menu: the table of its algorithms, whose names are
 * what TERN_COLL_<NAME> accepts and tern-info lists, and the function that
 * makes the automatic choice among them from the message size, the
 * communicator size and its layout. The thresholds of those functions are
 * named constants next to them, with the measurements behind them;
 * docs/algorithms.md gathers the figures. select.c keeps the menus in one
 * table by collective, reads TERN_COLL_<NAME> and logs each choice.
 */
#ifndef TERN_COLLECTIVES_SELECT_H
#define TERN_COLLECTIVES_SELECT_H

#include "collectives/algo.h"

struct tern_coll_menu {
    const struct tern_coll_algo *algos;
    int nalgos;
    const struct tern_coll_algo *(*choose)(const struct tern_coll_args *a);
};

/* A menu from an array of algorithms and a choice function. */
#define TERN_COLL_MENU(algos, choose) { algos, (int)(sizeof(algos) / sizeof(algos[0])), choose }

/* select_reduce.c */
extern const struct tern_coll_menu tern_coll_menu_barrier;
extern const struct tern_coll_menu tern_coll_menu_bcast;
extern const struct tern_coll_menu tern_coll_menu_reduce;
extern const struct tern_coll_menu tern_coll_menu_allreduce;
/* Whether an op is commutative and the communicator spans hosts with
 * several ranks on one: where the node-aware reductions apply. */
int tern_coll_two_level_commutative(const struct tern_coll_args *a);

/* select_scan.c; Reduce_scatter's menu serves Reduce_scatter_block too. */
extern const struct tern_coll_menu tern_coll_menu_reduce_scatter;
extern const struct tern_coll_menu tern_coll_menu_scan;
extern const struct tern_coll_menu tern_coll_menu_exscan;

/* select_rooted.c */
extern const struct tern_coll_menu tern_coll_menu_gather;
extern const struct tern_coll_menu tern_coll_menu_gatherv;
extern const struct tern_coll_menu tern_coll_menu_scatter;
extern const struct tern_coll_menu tern_coll_menu_scatterv;

/* select_move.c */
extern const struct tern_coll_menu tern_coll_menu_allgather;
extern const struct tern_coll_menu tern_coll_menu_allgatherv;
extern const struct tern_coll_menu tern_coll_menu_alltoall;
/* Alltoallv and Alltoallw. */
extern const struct tern_coll_menu tern_coll_menu_alltoallv;
/* The five neighbourhood collectives. */
extern const struct tern_coll_menu tern_coll_menu_neighbor;

#endif
