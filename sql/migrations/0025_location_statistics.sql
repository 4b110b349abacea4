-- Radius and box searches find their places through job_locations_latlng_idx, a btree on
-- (lat, lng), and the planner estimated a box as the product of its latitude and
-- longitude ranges, as if the two were independent. Postings cluster at the places they
-- name (a city's coordinates, not a spread), so that product is far too small: 699
-- estimated for 12,138 locations within 25 miles of London at 1,000,000 postings. On the
-- estimate, the planner read all 12,138 and each one's job to sort them by date (190 ms);
-- with the pairs' most common values known, it reads jobs newest first and checks each
-- one's places, stopping at the page (17 ms). ANALYZE (which ingest runs) fills them.
create statistics job_locations_latlng_stats (mcv) on lat, lng from job_locations;
analyze job_locations;
