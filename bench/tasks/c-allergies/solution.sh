#!/bin/bash
set -e
cat > 'allergies.c' <<'POSTHOC_EOF'
#include "allergies.h"
#include <stdlib.h>

bool is_allergic_to(allergen_t allergen, unsigned int score)
{
   return ((score & (1 << allergen)) != 0);
}

allergen_list_t get_allergens(unsigned int score)
{
   allergen_list_t list = {
      .count = 0,
      .allergens = { 0 },
   };

   for (allergen_t allergen = 0; allergen < ALLERGEN_COUNT; ++allergen) {
      if (is_allergic_to(allergen, score)) {
         list.allergens[allergen] = true;
         ++list.count;
      }
   }
   return list;
}
POSTHOC_EOF
cat > 'allergies.h' <<'POSTHOC_EOF'
#ifndef ALLERGIES_H
#define ALLERGIES_H

#include <stdbool.h>

typedef enum {
   ALLERGEN_EGGS = 0,
   ALLERGEN_PEANUTS,
   ALLERGEN_SHELLFISH,
   ALLERGEN_STRAWBERRIES,
   ALLERGEN_TOMATOES,
   ALLERGEN_CHOCOLATE,
   ALLERGEN_POLLEN,
   ALLERGEN_CATS,
   ALLERGEN_COUNT,
} allergen_t;

typedef struct {
   int count;
   bool allergens[ALLERGEN_COUNT];
} allergen_list_t;

bool is_allergic_to(allergen_t allergen, unsigned int score);
allergen_list_t get_allergens(unsigned int score);

#endif
POSTHOC_EOF
